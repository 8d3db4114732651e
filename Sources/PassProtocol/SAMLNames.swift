import Foundation

/// The SAML 2.0 names the stand-in SP and MVPDs write and check (spec §5.2.2): namespaces, the HTTP-POST binding,
/// status and name-ID formats, and Adobe's SP entity ID.
public enum SAMLNames {
    /// The SP's entity ID, the `Issuer` of every AuthnRequest and the `Audience` of every assertion (spec §5.2.2).
    public static let spEntityID = "https://saml.sp.auth.adobe.com"
    /// An MVPD's entity ID, the `Issuer` of its answers.
    public static func mvpdEntityID(_ mvpdID: String) -> String { "urn:passconsole:mvpd:\(mvpdID)" }

    static let protocolNamespace = "urn:oasis:names:tc:SAML:2.0:protocol"
    static let assertionNamespace = "urn:oasis:names:tc:SAML:2.0:assertion"
    static let signatureNamespace = "http://www.w3.org/2000/09/xmldsig#"
    static let hmacSHA256 = "http://www.w3.org/2001/04/xmldsig-more#hmac-sha256"
    static let postBinding = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"
    static let transientNameID = "urn:oasis:names:tc:SAML:2.0:nameid-format:transient"
    static let bearer = "urn:oasis:names:tc:SAML:2.0:cm:bearer"
    static let passwordProtected = "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport"
    /// `StatusCode` of a successful sign-in.
    public static let success = "urn:oasis:names:tc:SAML:2.0:status:Success"

    /// A new message ID (`_` and 32 hex digits: an XML ID must not start with a digit).
    public static func newID() -> String { "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }

    /// `IssueInstant` and friends: UTC, whole seconds, `Z`.
    static func instant(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        return try? Date(text, strategy: .iso8601)
    }

    /// Decodes a base64 form value into the XML text it carries.
    static func decode(_ base64: String) throws(PayloadFormatError) -> String {
        let compact = base64.filter { !$0.isWhitespace }
        guard let data = Data(base64Encoded: compact), let text = String(data: data, encoding: .utf8) else {
            throw PayloadFormatError("not base64-encoded UTF-8")
        }
        return text
    }
}
