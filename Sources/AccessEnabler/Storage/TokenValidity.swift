import Foundation
import Locking
import PassProtocol

/// Whether a stored token may be used (seed 002): its TTL has not run out, its issuer (MVPD) is one of the
/// requestor's allowed MVPDs and, when the device ID is given, it is bound to this device. A token that fails any
/// counts as absent. Pure, so tests and the console share it: the console's verdicts are ``Rules``, the same rules
/// each answered on its own.
public enum TokenValidity: Sendable, Equatable {
    case valid
    case malformed(String)
    case expired(Date)
    case issuerNotAllowed(String)
    case boundToAnotherDevice

    /// True for ``valid``.
    public var isValid: Bool { self == .valid }

    /// A sentence for logs and the console: why the token does or does not count.
    public var explanation: String {
        switch self {
        case .valid: "valid"
        case .malformed(let reason): "unreadable token: \(reason)"
        case .expired(let date): "expired at \(TokenDate.format(date))"
        case .issuerNotAllowed(let mvpd): "issuer \(mvpd) is not among the requestor's MVPDs"
        case .boundToAnotherDevice: "bound to another device ID"
        }
    }

    /// Judges an authN token string for a requestor whose configuration allows `allowedMvpds`.
    /// - Parameter deviceID: when given, a token bound to another device is ``boundToAnotherDevice``.
    public static func authN(
        _ serialized: String, allowedMvpds: Set<String>?, now: Date, deviceID: String? = nil
    ) -> (TokenValidity, AuthNToken?) {
        let token: AuthNToken
        do { token = try ParsedTokens.authN(serialized) } catch { return (.malformed(error.reason), nil) }
        return (Rules(token, allowedMvpds: allowedMvpds, now: now, deviceID: deviceID).verdict, token)
    }

    /// Judges an authZ token string, by the rules of ``authN(_:allowedMvpds:now:deviceID:)``.
    public static func authZ(
        _ serialized: String, allowedMvpds: Set<String>?, now: Date, deviceID: String? = nil
    ) -> (TokenValidity, AuthZToken?) {
        let token: AuthZToken
        do { token = try ParsedTokens.authZ(serialized) } catch { return (.malformed(error.reason), nil) }
        return (Rules(token, allowedMvpds: allowedMvpds, now: now, deviceID: deviceID).verdict, token)
    }
}

/// Tokens already parsed, by their serialized form: every call judges the stored tokens again, and parsing one
/// (Base64 and XML) cost more than the rest of a cached authorization. Parsing is a pure function of the string.
enum ParsedTokens {
    private static let authNTokens = Mutex<[String: AuthNToken]>([:])
    private static let authZTokens = Mutex<[String: AuthZToken]>([:])
    private static let capacity = 64

    static func authN(_ serialized: String) throws(TokenFormatError) -> AuthNToken {
        try cached(serialized, in: authNTokens) { () throws(TokenFormatError) in try SignedToken<AuthNToken>.parse(serialized).body }
    }

    static func authZ(_ serialized: String) throws(TokenFormatError) -> AuthZToken {
        try cached(serialized, in: authZTokens) { () throws(TokenFormatError) in try SignedToken<AuthZToken>.parse(serialized).body }
    }

    private static func cached<Token: Sendable>(
        _ serialized: String, in cache: borrowing Mutex<[String: Token]>, parse: () throws(TokenFormatError) -> Token
    ) throws(TokenFormatError) -> Token {
        if let hit = cache.withLock({ $0[serialized] }) { return hit }
        let token = try parse()
        cache.withLock { if $0.count >= capacity { $0.removeAll() }; $0[serialized] = token }
        return token
    }
}
