import Foundation
import PassProtocol

extension TokenValidity {
    /// Each rule of ``TokenValidity`` answered on its own for one readable token.
    ///
    /// The SDK stops at the first rule a token fails (``verdict``); the console shows every rule, so that an expired
    /// token of a foreign MVPD reads as both. Both come from this one type, so the console cannot drift from what the
    /// SDK does.
    ///
    /// ```swift
    /// let rules = TokenValidity.Rules(token, allowedMvpds: ["Dish"], now: .now, deviceID: deviceID)
    /// rules.ttl      // .valid or .expired(date)
    /// rules.verdict  // what TokenValidity.authN answers for the same token
    /// ```
    public struct Rules: Sendable, Equatable {
        /// ``TokenValidity/valid``, or ``TokenValidity/expired(_:)`` when the token's TTL has run out (a token
        /// expiring exactly now is expired).
        public var ttl: TokenValidity
        /// ``TokenValidity/valid``, or ``TokenValidity/issuerNotAllowed(_:)`` when its MVPD is not among the
        /// requestor's; always valid when the allowed MVPDs are not known.
        public var issuer: TokenValidity
        /// ``TokenValidity/valid``, or ``TokenValidity/boundToAnotherDevice`` when it was issued to another device
        /// ID; always valid when no device ID is given.
        public var device: TokenValidity

        /// The SDK's answer: the first rule the token fails, in the order TTL, issuer, device; ``TokenValidity/valid``
        /// when it passes all three.
        public var verdict: TokenValidity {
            [ttl, issuer, device].first { !$0.isValid } ?? .valid
        }

        /// Judges an authentication token.
        public init(_ token: AuthNToken, allowedMvpds: Set<String>?, now: Date, deviceID: String?) {
            self.init(
                expired: token.isExpired(at: now) ? token.expires : nil, mvpdID: token.mvpdID, allowedMvpds: allowedMvpds,
                matchesDevice: deviceID.map { token.matches(deviceID: $0) })
        }

        /// Judges an authorization token.
        public init(_ token: AuthZToken, allowedMvpds: Set<String>?, now: Date, deviceID: String?) {
            self.init(
                expired: token.isExpired(at: now) ? token.expires : nil, mvpdID: token.mvpdID, allowedMvpds: allowedMvpds,
                matchesDevice: deviceID.map { token.matches(deviceID: $0) })
        }

        private init(expired: Date?, mvpdID: String, allowedMvpds: Set<String>?, matchesDevice: Bool?) {
            ttl = expired.map(TokenValidity.expired) ?? .valid
            issuer = allowedMvpds.map { $0.contains(mvpdID) } == false ? .issuerNotAllowed(mvpdID) : .valid
            device = matchesDevice == false ? .boundToAnotherDevice : .valid
        }
    }
}
