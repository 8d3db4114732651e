import Foundation

/// The SP's SAML `AuthnRequest` (spec §5.2.2): what the page of `authenticate/saml` auto-posts to an MVPD that uses
/// the HTTP-POST binding, base64-encoded in the `SAMLRequest` form field next to `RelayState`.
///
/// ```xml
/// <samlp:AuthnRequest ID="_…" Version="2.0" IssueInstant="…" Destination="/mvpd/Cablevision/saml/sso"
///   AssertionConsumerServiceURL="/sp/saml/SAMLAssertionConsumer" ProtocolBinding="…HTTP-POST"
///   IsPassive="false" ForceAuthn="false">
///   <saml:Issuer>https://saml.sp.auth.adobe.com</saml:Issuer>
///   <samlp:NameIDPolicy Format="…transient" AllowCreate="true"/>
/// </samlp:AuthnRequest>
/// ```
public struct SAMLAuthnRequest: Sendable, Equatable {
    /// The request's ID; the MVPD's `Response` names it in `InResponseTo`.
    public var id: String
    public var issueInstant: Date
    /// Where it is posted: the MVPD's single-sign-on endpoint.
    public var destination: String
    /// Where the MVPD posts its answer.
    public var assertionConsumerServiceURL: String
    /// The SP's entity ID.
    public var issuer: String
    /// Passive authentication: the MVPD must not show a page.
    public var isPassive: Bool

    public init(
        id: String = SAMLNames.newID(), issueInstant: Date, destination: String,
        assertionConsumerServiceURL: String = SDKEndpoint.samlAssertionConsumer, issuer: String = SAMLNames.spEntityID,
        isPassive: Bool = false
    ) {
        self.id = id
        self.issueInstant = issueInstant
        self.destination = destination
        self.assertionConsumerServiceURL = assertionConsumerServiceURL
        self.issuer = issuer
        self.isPassive = isPassive
    }

    /// The request as XML.
    public var xml: String {
        XMLWriter.render { w in
            w.element(
                "samlp:AuthnRequest",
                attributes: [
                    "xmlns:samlp": SAMLNames.protocolNamespace, "xmlns:saml": SAMLNames.assertionNamespace, "ID": id,
                    "Version": "2.0", "IssueInstant": SAMLNames.instant(issueInstant), "Destination": destination,
                    "AssertionConsumerServiceURL": assertionConsumerServiceURL, "ProtocolBinding": SAMLNames.postBinding,
                    "IsPassive": isPassive ? "true" : "false", "ForceAuthn": "false",
                ]
            ) { w in
                w.element("saml:Issuer", issuer)
                w.emptyElement("samlp:NameIDPolicy", attributes: ["Format": SAMLNames.transientNameID, "AllowCreate": "true"])
            }
        }
    }

    /// The `SAMLRequest` form value: the XML, base64-encoded (the HTTP-POST binding does not deflate).
    public var base64: String { Data(xml.utf8).base64EncodedString() }

    /// Reads a `SAMLRequest` form value.
    /// - Throws: ``PayloadFormatError`` when it is not base64, not XML, not an `AuthnRequest`, or lacks its ID,
    ///   consumer URL or issuer.
    public static func parse(base64: String) throws(PayloadFormatError) -> SAMLAuthnRequest {
        let root = try XMLNode.parse(try SAMLNames.decode(base64))
        guard root.name.hasSuffix("AuthnRequest") else { throw PayloadFormatError("the root element is \(root.name), not AuthnRequest") }
        guard let id = root.attributes["ID"], !id.isEmpty else { throw PayloadFormatError("the AuthnRequest has no ID") }
        guard let acs = root.attributes["AssertionConsumerServiceURL"], !acs.isEmpty else {
            throw PayloadFormatError("the AuthnRequest names no AssertionConsumerServiceURL")
        }
        guard let issuer = root.children.first(where: { $0.name.hasSuffix("Issuer") })?.text, !issuer.isEmpty else {
            throw PayloadFormatError("the AuthnRequest has no Issuer")
        }
        guard let instant = SAMLNames.date(root.attributes["IssueInstant"]) else {
            throw PayloadFormatError("the AuthnRequest has no valid IssueInstant")
        }
        return SAMLAuthnRequest(
            id: id, issueInstant: instant, destination: root.attributes["Destination"] ?? "",
            assertionConsumerServiceURL: acs, issuer: issuer, isPassive: root.attributes["IsPassive"] == "true")
    }
}
