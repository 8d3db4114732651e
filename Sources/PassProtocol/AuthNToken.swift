import Foundation

/// The body of an authentication token: `<simpleAuthenticationToken>` (seed 002 §Format, spec §6.1).
///
/// Issued by the backend after a login, bound to the device by ``deviceFingerprint``, stored by the SDK and
/// presented back on every authorization. The signed string form is ``SignedToken``.
///
/// ```swift
/// let token = AuthNToken(guid: "71C69B91-…", requestorID: "REF30", expires: expiry, mvpdID: "Cablevision",
///                        deviceFingerprint: DeviceFingerprint.make(deviceID: deviceID))
/// let signed = SignedToken.sign(token, with: key)
/// ```
public struct AuthNToken: TokenBody, Codable {
    /// The session GUID (`simpleTokenAuthenticationGuid`), the user as Adobe sees it; sent as `session_guid`.
    public var guid: String
    /// The requestor that obtained the token (`simpleTokenRequestorID`).
    public var requestorID: String
    /// The domain (`simpleTokenDomainName`), normally `adobe.com`.
    public var domainName: String
    /// When the token stops being valid (`simpleTokenExpires`).
    public var expires: Date
    /// The MVPD that issued the login (`simpleTokenMsoID`).
    public var mvpdID: String
    /// The device binding (`simpleTokenDeviceID/simpleTokenFingerprint`); see ``DeviceFingerprint``.
    public var deviceFingerprint: String
    /// The SAML NameID (`simpleSamlNameID`), sent as `name_id` on logout.
    public var samlNameID: String?
    /// The SAML session index (`simpleSamlSessionIndex`), sent as `session_index` on logout.
    public var samlSessionIndex: String?
    /// Resources the MVPD authorized at login (`simpleAuthorizedResources`), used by preauthorization.
    public var authorizedResources: [String]

    /// The root element name, `simpleAuthenticationToken`.
    public static let rootElement = "simpleAuthenticationToken"

    /// Creates an authentication token body.
    public init(
        guid: String,
        requestorID: String,
        domainName: String = "adobe.com",
        expires: Date,
        mvpdID: String,
        deviceFingerprint: String,
        samlNameID: String? = nil,
        samlSessionIndex: String? = nil,
        authorizedResources: [String] = []
    ) {
        self.guid = guid
        self.requestorID = requestorID
        self.domainName = domainName
        self.expires = expires
        self.mvpdID = mvpdID
        self.deviceFingerprint = deviceFingerprint
        self.samlNameID = samlNameID
        self.samlSessionIndex = samlSessionIndex
        self.authorizedResources = authorizedResources
    }

    /// Whether the token has expired at `now` (expiry is exclusive: a token expiring now is expired).
    public func isExpired(at now: Date) -> Bool {
        expires <= now
    }

    /// The body as compact XML, in the element order of the seed; optional elements only when present.
    public var xmlBody: String {
        XMLWriter.render { xml in
            xml.element(Self.rootElement) { xml in
                xml.element("simpleTokenAuthenticationGuid", guid)
                xml.element("simpleTokenRequestorID", requestorID)
                xml.element("simpleTokenDomainName", domainName)
                xml.element("simpleTokenExpires", TokenDate.format(expires))
                xml.element("simpleTokenMsoID", mvpdID)
                xml.fingerprint(deviceFingerprint)
                xml.optionalElement("simpleSamlNameID", samlNameID)
                xml.optionalElement("simpleSamlSessionIndex", samlSessionIndex)
                if !authorizedResources.isEmpty {
                    xml.element("simpleAuthorizedResources") { xml in
                        for resource in authorizedResources {
                            xml.emptyElement("simpleAuthorizedResource", attributes: ["simpleResourceID": resource])
                        }
                    }
                }
            }
        }
    }

    /// Reads an authentication token body; `simpleTokenDomainName` defaults to `adobe.com` when absent.
    ///
    /// - Throws: ``TokenFormatError`` naming the missing or malformed element.
    public static func parse(body: String) throws(TokenFormatError) -> AuthNToken {
        let root = try XMLNode.tokenRoot(body, named: rootElement)
        let resources =
            root.child("simpleAuthorizedResources")?.children("simpleAuthorizedResource")
            .map { $0.attributes["simpleResourceID"] ?? $0.text } ?? []
        return AuthNToken(
            guid: try root.required("simpleTokenAuthenticationGuid"),
            requestorID: try root.required("simpleTokenRequestorID"),
            domainName: root.text(of: "simpleTokenDomainName") ?? "adobe.com",
            expires: try root.requiredDate("simpleTokenExpires"),
            mvpdID: try root.required("simpleTokenMsoID"),
            deviceFingerprint: try root.requiredFingerprint(),
            samlNameID: root.text(of: "simpleSamlNameID"),
            samlSessionIndex: root.text(of: "simpleSamlSessionIndex"),
            authorizedResources: resources
        )
    }
}
