import Foundation

/// Checks short media tokens the way a Programmer's video server would (spec §6.3).
///
/// Accepts the raw SDK form and the Base64 REST form (`serializedToken`). Checks, in order: format,
/// signature, expiry, resource. Replay (``MediaTokenVerdict/tokenAlreadyUsed``) needs memory of used
/// signatures, so it is the backend's job, not this pure value's.
///
/// ```swift
/// let verifier = MediaTokenVerifier(key: signingKey.publicKey)
/// let (verdict, token) = verifier.verify(serializedToken, resourceID: "bravo", now: .now)
/// ```
public struct MediaTokenVerifier: Sendable {
    /// The key the tokens must be signed with.
    public let key: TokenVerificationKey

    /// Creates a verifier for tokens signed with the private half of `key`.
    public init(key: TokenVerificationKey) {
        self.key = key
    }

    /// Checks `token` for `resourceID` at `now`.
    ///
    /// - Parameters:
    ///   - token: The media token, raw (`<signatureInfo>…`) or Base64 (`PHNpZ25hdHVyZUluZm8+…`).
    ///   - resourceID: The resource being played, or `nil` to accept any resource.
    ///   - now: The time to judge expiry against.
    /// - Returns: The verdict and, whenever the token could be read, the decoded token (also for bad
    ///   signatures, so the console can show what was presented).
    public func verify(
        _ token: String,
        resourceID: String?,
        now: Date
    ) -> (MediaTokenVerdict, SignedToken<MediaToken>?) {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        let parsed: SignedToken<MediaToken>
        do {
            parsed =
                trimmed.hasPrefix("<")
                ? try SignedToken<MediaToken>.parse(trimmed)
                : try SignedToken<MediaToken>.parse(base64: trimmed)
        } catch {
            return (.invalidTokenFormat, nil)
        }
        guard parsed.verify(with: key) else { return (.invalidSignature, parsed) }
        guard !parsed.body.isExpired(at: now) else { return (.tokenExpired, parsed) }
        if let resourceID, resourceID.trimmingCharacters(in: .whitespacesAndNewlines) != parsed.body.resourceID {
            return (.invalidResourceID, parsed)
        }
        return (.validToken, parsed)
    }
}
