/// Why the backend refused a token a client presented. Each case says which rule failed, in words.
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
}
