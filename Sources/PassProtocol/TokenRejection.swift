/// Why the backend refused a token a client presented. Each case says which rule failed, in words.
///
/// It travels as the `Authzf-Error-Code` header beside `<error><details>…</details></error>` (``code`` and
/// ``reason``); the SDK records the header with the exchange, so the console names the backend's rule from the same
/// code the backend threw (``rule(forCode:)``).
public enum TokenRejection: Error, Sendable, Equatable {
    case malformed(String)
    case badSignature
    case expired(String)
    case deviceMismatch
    case wrongRequestor(token: String, presented: String)
    case mvpdNotIntegrated(mvpd: String, requestor: String)
    case sessionRevoked
    case resourceMismatch(token: String, presented: String)
    case unknownSession

    /// A stable code for JSON answers and headers.
    public var code: String {
        switch self {
        case .malformed: "token_malformed"
        case .badSignature: "token_signature_invalid"
        case .expired: "token_expired"
        case .deviceMismatch: "device_mismatch"
        case .wrongRequestor: "token_requestor_mismatch"
        case .mvpdNotIntegrated: "issuer_not_allowed"
        case .sessionRevoked: "session_revoked"
        case .resourceMismatch: "resource_mismatch"
        case .unknownSession: "session_unknown"
        }
    }

    /// What failed, in words a support person can repeat.
    public var reason: String {
        switch self {
        case .malformed(let detail): "The token cannot be read: \(detail)."
        case .badSignature: "The token's signature does not match its content (it was altered or signed by another key)."
        case .expired(let when): "The token expired at \(when)."
        case .deviceMismatch: "The token is bound to another device ID than the one presented."
        case .wrongRequestor(let token, let presented):
            "The token was issued to Programmer \(token), not to \(presented)."
        case .mvpdNotIntegrated(let mvpd, let requestor):
            "The token's issuer \(mvpd) is not among the MVPDs allowed for \(requestor)."
        case .sessionRevoked: "The user's session was ended on the server (logout elsewhere or revoked)."
        case .resourceMismatch(let token, let presented):
            "The token is for resource \(token), not \(presented)."
        case .unknownSession: "The server has no session for this token (logged out or never signed in)."
        }
    }

    /// The rule that failed, as a short name (`token issued to another Programmer`).
    public var rule: String { Self.rule(forCode: code) ?? code }

    /// The rule a recorded `Authzf-Error-Code` names, or `nil` for a code this backend never sends.
    public static func rule(forCode code: String) -> String? {
        switch code {
        case "token_malformed": "token unreadable"
        case "token_signature_invalid": "token signature invalid"
        case "token_expired": "token expired"
        case "device_mismatch": "token bound to another device ID"
        case "token_requestor_mismatch": "token issued to another Programmer"
        case "issuer_not_allowed": "issuer not integrated with this Programmer"
        case "session_revoked": "session ended on the server"
        case "resource_mismatch": "token for another resource"
        case "session_unknown": "no server session for this token"
        case "user_not_authorized": "the MVPD denied the resource"
        default: nil
        }
    }
}
