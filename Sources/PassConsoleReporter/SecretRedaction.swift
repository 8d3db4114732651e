import Foundation

/// The SDK's rule for secrets in events (AccessEnabler's `EntitlementEvent.redacted()`), applied on the device before
/// an event is queued: passwords entirely; tokens, authentication tokens, signatures and SAML assertions kept as a
/// prefix that tells them apart without letting anyone replay them. The console applies the same rule again on
/// ingest, so redacting twice changes nothing (a redacted value comes back unchanged).
enum SecretRedaction {
    static let secretNames: Set<String> = ["authentication_token", "authz_token", "secret", "client_secret", "signature", "password"]

    /// Password fields of MVPD login pages whose names say nothing of it (OpenAM's `IDToken2`).
    static let passwordFields: Set<String> = ["idtoken2"]

    /// How a token starts wherever it is written: raw, XML-escaped, Base64, URL-encoded.
    static let tokenMarkers = ["<signatureInfo>", "&lt;signatureInfo&gt;", "PHNpZ25hdHVyZUluZm8+", "%3CsignatureInfo%3E"]

    /// The longest text kept of a value that is not a secret itself.
    static let textLimit = 4000

    /// Whether an argument named `name` holds a secret: a token, signature or secret name in any case, a SAML
    /// assertion (`SAMLResponse`), or a password.
    static func isSecret(_ name: String) -> Bool {
        let lower = name.lowercased()
        return secretNames.contains(lower) || lower == "samlresponse" || isPassword(lower) || lower.contains("secret")
    }

    /// Whether the lowercased name `lower` is a password field (`password`, `passwd` anywhere in it, or `IDToken2`).
    static func isPassword(_ lower: String) -> Bool {
        lower.contains("password") || lower.contains("passwd") || passwordFields.contains(lower)
    }

    /// An argument's value as kept: a secret's as ``secret(named:_:)`` keeps it, any other's with a token in it cut off.
    static func argument(named name: String, _ value: String) -> String {
        isSecret(name) ? secret(named: name, value) : text(value)
    }

    /// A secret's value as kept: a password entirely hidden (a prefix of it is half a password), any other secret
    /// shortened to a prefix.
    static func secret(named name: String, _ value: String) -> String {
        isPassword(name.lowercased()) ? "[redacted]" : shorten(value)
    }

    /// `…[redacted N chars]` after the first 16 characters, or `[redacted]` for 24 characters or fewer.
    static func shorten(_ secret: String) -> String {
        if secret == "[redacted]" || (secret.hasSuffix(" chars]") && secret.contains("…[redacted ")) { return secret }
        let count = secret.count
        return count <= 24 ? "[redacted]" : String(secret.prefix(16)) + "…[redacted \(count) chars]"
    }

    /// Text with any token in it cut off (`[token redacted]`), at most ``textLimit`` characters.
    static func text(_ text: String) -> String {
        let limited = text.count > textLimit ? String(text.prefix(textLimit)) + "…" : text
        let starts = tokenMarkers.compactMap { limited.range(of: $0)?.lowerBound }
        guard let start = starts.min() else { return limited }
        return String(limited[..<start]) + "[token redacted]"
    }
}
