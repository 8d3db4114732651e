/// The result of checking a media token, named as Adobe's Media Token Verifier names them (spec §6.3).
public enum MediaTokenVerdict: String, Codable, Sendable, CaseIterable {
    /// The token is well-formed, correctly signed, unexpired and for the expected resource.
    case validToken = "VALID_TOKEN"
    /// The token is not in the `<signatureInfo>…<signatureInfo><shortAuthorizationToken>…` form.
    case invalidTokenFormat = "INVALID_TOKEN_FORMAT"
    /// The signature does not match the body under the verification key.
    case invalidSignature = "INVALID_SIGNATURE"
    /// The token's time to live has passed.
    case tokenExpired = "TOKEN_EXPIRED"
    /// The token grants a different resource from the one being played.
    case invalidResourceID = "INVALID_RESOURCE_ID"
    /// The token was already presented once; media tokens are single-use. Decided by the backend.
    case tokenAlreadyUsed = "TOKEN_ALREADY_USED"
    /// Something else went wrong while checking.
    case errorUnknown = "ERROR_UNKNOWN"

    /// What the verdict means, in plain words, for logs and the console.
    public var explanation: String {
        switch self {
        case .validToken:
            "The token is genuine, still valid and grants this resource."
        case .invalidTokenFormat:
            "This is not a media token: it should be <signatureInfo>signature<signatureInfo> followed by a "
                + "<shortAuthorizationToken> body, as raw text or Base64."
        case .invalidSignature:
            "The signature does not match: the token was altered or signed with another key."
        case .tokenExpired:
            "The token's time to live has passed; ask for a new media token."
        case .invalidResourceID:
            "The token was issued for a different resource than the one requested."
        case .tokenAlreadyUsed:
            "The token was already used once; media tokens are single-use."
        case .errorUnknown:
            "The token could not be checked for an unexpected reason."
        }
    }
}
