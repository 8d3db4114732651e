import Crypto
import Foundation

/// An MVPD's SAML `Response` to the SP (spec §5.2.2): the assertion that a subscriber signed in, base64-encoded in
/// the `SAMLResponse` field the MVPD's page posts (or, in the redirect shape, puts in the query) to
/// `/sp/saml/SAMLAssertionConsumer`, next to the `RelayState` it received.
///
/// It carries the subscriber's `NameID` (the user ID the MVPD asserts), a session index and the attributes
/// `username` and `userID`. The stand-in MVPDs sign it with an HMAC-SHA256 `ds:Signature` over the document without
/// that element (real IdPs use XML-DSig with certificates; the key here is the backend's own), so an altered answer
/// is refused.
public struct SAMLResponse: Sendable, Equatable {
    public var id: String
    /// The `AuthnRequest` ID this answers.
    public var inResponseTo: String
    public var issueInstant: Date
    /// The consumer it is meant for.
    public var destination: String
    /// The MVPD's entity ID.
    public var issuer: String
    /// `SAMLNames.success`, or the MVPD's failure status.
    public var statusCode: String
    /// The subscriber's ID as the MVPD asserts it.
    public var nameID: String
    public var sessionIndex: String
    /// Until when the SP may accept it.
    public var notOnOrAfter: Date
    /// Attribute name → value (`username`, `userID`).
    public var attributes: [String: String]

    public init(
        id: String = SAMLNames.newID(), inResponseTo: String, issueInstant: Date,
        destination: String = SDKEndpoint.samlAssertionConsumer, issuer: String, statusCode: String = SAMLNames.success,
        nameID: String, sessionIndex: String = SAMLNames.newID(), notOnOrAfter: Date, attributes: [String: String]
    ) {
        self.id = id
        self.inResponseTo = inResponseTo
        self.issueInstant = issueInstant
        self.destination = destination
        self.issuer = issuer
        self.statusCode = statusCode
        self.nameID = nameID
        self.sessionIndex = sessionIndex
        self.notOnOrAfter = notOnOrAfter
        self.attributes = attributes
    }

    /// Why a `SAMLResponse` form value was refused.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not base64, not XML, not a `Response`, or a required part missing.
        case malformed(String)
        /// The signature is missing or does not match the document: altered, or not issued by a known MVPD.
        case badSignature

        public var description: String {
            switch self {
            case .malformed(let reason): "The SAMLResponse is not a readable SAML Response: \(reason)."
            case .badSignature: "The SAMLResponse's signature does not match its content: it was altered or not issued by the MVPD."
            }
        }
    }

    /// The response as XML, without its signature.
    var unsignedXML: String { render(signature: nil) }

    /// The `SAMLResponse` form value: the signed XML, base64-encoded.
    public func signedBase64(key: SymmetricKey) -> String {
        Data(render(signature: Self.mac(unsignedXML, key: key)).utf8).base64EncodedString()
    }

    /// Reads a `SAMLResponse` form value and checks its signature with `key`.
    public static func verified(base64: String, key: SymmetricKey) throws(Refusal) -> SAMLResponse {
        let xml: String
        do { xml = try SAMLNames.decode(base64) } catch { throw .malformed(error.reason) }
        guard let open = xml.range(of: "<ds:Signature"), let close = xml.range(of: "</ds:Signature>", range: open.upperBound..<xml.endIndex)
        else { throw .badSignature }
        let signature = String(xml[open.lowerBound..<close.upperBound])
        let unsigned = xml.replacingCharacters(in: open.lowerBound..<close.upperBound, with: "")
        guard let value = Self.between(signature, "<ds:SignatureValue>", "</ds:SignatureValue>"),
            let mac = Data(base64Encoded: value),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(unsigned.utf8), using: key)
        else { throw .badSignature }
        do { return try parse(xml) } catch { throw .malformed(error.reason) }
    }

    private static func parse(_ xml: String) throws(PayloadFormatError) -> SAMLResponse {
        let root = try XMLNode.parse(xml)
        guard root.name.hasSuffix(":Response") || root.name == "Response" else {
            throw PayloadFormatError("the root element is \(root.name), not Response")
        }
        func child(_ node: XMLNode, _ name: String) -> XMLNode? { node.children.first { $0.name.hasSuffix(name) } }
        func require(_ value: String?, _ what: String) throws(PayloadFormatError) -> String {
            guard let value, !value.isEmpty else { throw PayloadFormatError("no \(what)") }
            return value
        }
        let assertion = child(root, ":Assertion")
        let subject = assertion.flatMap { child($0, ":Subject") }
        let confirmation = subject.flatMap { child($0, ":SubjectConfirmation") }.flatMap { child($0, ":SubjectConfirmationData") }
        var attributes: [String: String] = [:]
        for attribute in assertion.flatMap({ child($0, ":AttributeStatement") })?.children ?? [] {
            if let name = attribute.attributes["Name"] { attributes[name] = attribute.children.first?.text ?? "" }
        }
        guard let issued = SAMLNames.date(root.attributes["IssueInstant"]) else { throw PayloadFormatError("no valid IssueInstant") }
        guard let until = SAMLNames.date(confirmation?.attributes["NotOnOrAfter"]) else {
            throw PayloadFormatError("no valid SubjectConfirmationData NotOnOrAfter")
        }
        return SAMLResponse(
            id: try require(root.attributes["ID"], "ID"), inResponseTo: try require(root.attributes["InResponseTo"], "InResponseTo"),
            issueInstant: issued, destination: root.attributes["Destination"] ?? "",
            issuer: try require(child(root, ":Issuer")?.text, "Issuer"),
            statusCode: try require(child(root, ":Status").flatMap { child($0, ":StatusCode") }?.attributes["Value"], "StatusCode"),
            nameID: try require(subject.flatMap { child($0, ":NameID") }?.text, "NameID"),
            sessionIndex: assertion.flatMap { child($0, ":AuthnStatement") }?.attributes["SessionIndex"] ?? "",
            notOnOrAfter: until, attributes: attributes)
    }

    private func render(signature: String?) -> String {
        XMLWriter.render { w in
            w.element(
                "samlp:Response",
                attributes: [
                    "xmlns:samlp": SAMLNames.protocolNamespace, "xmlns:saml": SAMLNames.assertionNamespace, "ID": id,
                    "InResponseTo": inResponseTo, "Version": "2.0", "IssueInstant": SAMLNames.instant(issueInstant),
                    "Destination": destination,
                ]
            ) { w in
                w.element("saml:Issuer", issuer)
                if let signature {
                    w.element("ds:Signature", attributes: ["xmlns:ds": SAMLNames.signatureNamespace]) { w in
                        w.emptyElement("ds:SignatureMethod", attributes: ["Algorithm": SAMLNames.hmacSHA256])
                        w.element("ds:SignatureValue", signature)
                    }
                }
                w.element("samlp:Status") { w in w.emptyElement("samlp:StatusCode", attributes: ["Value": statusCode]) }
                w.element("saml:Assertion", attributes: ["ID": "\(id)a", "Version": "2.0", "IssueInstant": SAMLNames.instant(issueInstant)]) { w in
                    w.element("saml:Issuer", issuer)
                    w.element("saml:Subject") { w in
                        w.element("saml:NameID", attributes: ["Format": SAMLNames.transientNameID]) { w in w.text(nameID) }
                        w.element("saml:SubjectConfirmation", attributes: ["Method": SAMLNames.bearer]) { w in
                            w.emptyElement("saml:SubjectConfirmationData", attributes: [
                                "InResponseTo": inResponseTo, "Recipient": destination, "NotOnOrAfter": SAMLNames.instant(notOnOrAfter),
                            ])
                        }
                    }
                    w.element("saml:Conditions", attributes: ["NotBefore": SAMLNames.instant(issueInstant), "NotOnOrAfter": SAMLNames.instant(notOnOrAfter)]) { w in
                        w.element("saml:AudienceRestriction") { w in w.element("saml:Audience", SAMLNames.spEntityID) }
                    }
                    w.element("saml:AuthnStatement", attributes: ["AuthnInstant": SAMLNames.instant(issueInstant), "SessionIndex": sessionIndex]) { w in
                        w.element("saml:AuthnContext") { w in w.element("saml:AuthnContextClassRef", SAMLNames.passwordProtected) }
                    }
                    w.element("saml:AttributeStatement") { w in
                        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
                            w.element("saml:Attribute", attributes: ["Name": name]) { w in w.element("saml:AttributeValue", value) }
                        }
                    }
                }
            }
        }
    }

    private static func mac(_ text: String, key: SymmetricKey) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: key)).base64EncodedString()
    }

    private static func between(_ text: String, _ open: String, _ close: String) -> String? {
        guard let start = text.range(of: open), let end = text.range(of: close, range: start.upperBound..<text.endIndex) else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }
}
