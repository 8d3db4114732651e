import Crypto
import Foundation

/// The HMAC-signed `Authorization` header of REST v1 clients before DCR (spec §5.4.2).
///
/// The header is one line:
/// `POST requestor_id=REF, nonce=…, signature_method=HMAC-SHA1, request_time=<ms>, request_uri=/regcode,
/// public_key=<pk>, signature=<Base64(HMAC-SHA1(secret, everything before ", public_key="))>`.
///
/// ```swift
/// let header = LegacyAuthorization.make(method: "POST", requestorID: "REF", requestURI: "/regcode",
///                                       publicKey: pk, secret: secret, nonce: UUID().uuidString,
///                                       requestTime: EpochMilliseconds.from(.now))
/// let auth = try LegacyAuthorization.parse(header)
/// auth.verifySignature(secret: secret) && auth.matchesPath("/reggie/v1/REF/regcode")   // true
/// ```
public struct LegacyAuthorization: Sendable, Equatable {
    /// The HTTP verb the client signed, e.g. `POST`.
    public var method: String
    /// `requestor_id`: the requestor, used when the query lacks one (KODI-AP's `checkauthn`).
    public var requestorID: String
    /// `nonce`: a per-request random string (clients send a UUID).
    public var nonce: String
    /// `signature_method`: always `HMAC-SHA1` in practice.
    public var signatureMethod: String
    /// `request_time`: when the client signed, in epoch milliseconds.
    public var requestTime: Int64
    /// `request_uri`: the path the client signed, full (`/api/v1/authorize`) or short (`/authorize`).
    public var requestURI: String
    /// `public_key`: identifies the client's key pair.
    public var publicKey: String
    /// `signature`: Base64 HMAC-SHA1 over ``signedPrefix``.
    public var signature: String
    /// The exact text the signature covers: everything before `, public_key=`.
    public var signedPrefix: String

    /// The only signature method clients use.
    public static let hmacSHA1 = "HMAC-SHA1"

    /// Builds a signed header value.
    ///
    /// - Returns: The value for the `Authorization` header, without the header name.
    public static func make(
        method: String,
        requestorID: String,
        requestURI: String,
        publicKey: String,
        secret: String,
        nonce: String,
        requestTime: Int64
    ) -> String {
        let prefix =
            "\(method) requestor_id=\(requestorID), nonce=\(nonce), signature_method=\(hmacSHA1), "
            + "request_time=\(requestTime), request_uri=\(requestURI)"
        return prefix + ", public_key=\(publicKey), signature=\(sign(prefix, secret: secret))"
    }

    /// Reads a header value, keeping the signed prefix exactly as received.
    ///
    /// - Throws: ``LegacyAuthorizationError`` naming the malformed part or missing field.
    public static func parse(_ header: String) throws(LegacyAuthorizationError) -> LegacyAuthorization {
        let text = header.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .malformedHeader("the header is empty") }
        guard let space = text.firstIndex(of: " ") else {
            throw .malformedHeader("expected \"<METHOD> requestor_id=…, …\"")
        }
        let method = String(text[..<space])
        guard method.allSatisfy(\.isLetter) else {
            throw .malformedHeader("\"\(method)\" is not an HTTP method")
        }
        guard let publicKeyRange = text.range(of: ", public_key=") else { throw .missingField("public_key") }
        let fields = try fields(of: text[text.index(after: space)...])
        func field(_ name: String) throws(LegacyAuthorizationError) -> String {
            guard let value = fields[name], !value.isEmpty else { throw .missingField(name) }
            return value
        }
        let timeText = try field("request_time")
        guard let requestTime = Int64(timeText) else {
            throw .invalidField(name: "request_time", value: timeText)
        }
        return LegacyAuthorization(
            method: method,
            requestorID: try field("requestor_id"),
            nonce: try field("nonce"),
            signatureMethod: try field("signature_method"),
            requestTime: requestTime,
            requestURI: try field("request_uri"),
            publicKey: try field("public_key"),
            signature: try field("signature"),
            signedPrefix: String(text[..<publicKeyRange.lowerBound])
        )
    }

    /// Whether ``signature`` is the HMAC-SHA1 of ``signedPrefix`` under `secret`. Compared in constant time.
    public func verifySignature(secret: String) -> Bool {
        guard signatureMethod.uppercased() == Self.hmacSHA1,
            let code = LenientBase64.decode(signature)
        else { return false }
        return HMAC<Insecure.SHA1>.isValidAuthenticationCode(
            code,
            authenticating: Data(signedPrefix.utf8),
            using: SymmetricKey(data: Data(secret.utf8))
        )
    }

    /// Whether ``requestURI`` names the request's `path`, in either style.
    ///
    /// Clients send the full path (`/api/v1/authorize`) or a short one (`/authorize`, `/authenticate/{code}`,
    /// `/regcode`); the trailing path segments are compared, ignoring query strings and a trailing slash.
    public func matchesPath(_ path: String) -> Bool {
        let signed = Self.segments(requestURI)
        let actual = Self.segments(path)
        guard !signed.isEmpty, !actual.isEmpty else { return false }
        return signed.count <= actual.count
            ? actual.suffix(signed.count) == signed[...]
            : signed.suffix(actual.count) == actual[...]
    }

    /// Whether ``requestTime`` lies within `window` seconds of `now`, either side.
    public func isFresh(at now: Date, window: TimeInterval = 300) -> Bool {
        abs(EpochMilliseconds.date(requestTime).timeIntervalSince(now)) <= window
    }

    private static func sign(_ prefix: String, secret: String) -> String {
        let code = HMAC<Insecure.SHA1>.authenticationCode(
            for: Data(prefix.utf8),
            using: SymmetricKey(data: Data(secret.utf8))
        )
        return Data(code).base64EncodedString()
    }

    /// Splits `key=value, key=value` into a dictionary; values keep `=` (Base64 padding) after the first one.
    private static func fields(of text: Substring) throws(LegacyAuthorizationError) -> [String: String] {
        var fields: [String: String] = [:]
        for part in text.split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw .malformedHeader("\"\(pair)\" is not a key=value field")
            }
            fields[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return fields
    }

    private static func segments(_ path: String) -> [Substring] {
        let withoutQuery = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return withoutQuery.split(separator: "/")
    }
}
