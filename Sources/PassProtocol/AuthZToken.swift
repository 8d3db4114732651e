import Foundation

/// The body of an authorization token: `<simpleAuthorizationToken>` (seed 002 §Format, spec §6.2).
///
/// Grants one resource to one authenticated device; the SDK keeps one per resource and overwrites it on
/// renewal. Its expiry is written in `simpleTokenTTL`, which despite the name holds a date.
public struct AuthZToken: TokenBody, Codable {
    /// The requestor that obtained the token (`simpleTokenRequestorID`).
    public var requestorID: String
    /// The authorized resource (`simpleTokenResourceID`): a plain ID or an MRSS document, stored escaped.
    public var resourceID: String
    /// When the token stops being valid (`simpleTokenTTL`).
    public var expires: Date
    /// The MVPD that authorized (`simpleTokenMsoID`).
    public var mvpdID: String
    /// The device binding (`simpleTokenDeviceID/simpleTokenFingerprint`); see ``DeviceFingerprint``.
    public var deviceFingerprint: String

    /// The root element name, `simpleAuthorizationToken`.
    public static let rootElement = "simpleAuthorizationToken"

    /// Creates an authorization token body.
    public init(requestorID: String, resourceID: String, expires: Date, mvpdID: String, deviceFingerprint: String) {
        self.requestorID = requestorID
        self.resourceID = resourceID
        self.expires = expires
        self.mvpdID = mvpdID
        self.deviceFingerprint = deviceFingerprint
    }

    /// Whether the token has expired at `now` (expiry is exclusive: a token expiring now is expired).
    public func isExpired(at now: Date) -> Bool {
        expires <= now
    }

    /// The body as compact XML, in the element order of the seed.
    public var xmlBody: String {
        XMLWriter.render { xml in
            xml.element(Self.rootElement) { xml in
                xml.element("simpleTokenRequestorID", requestorID)
                xml.element("simpleTokenResourceID", resourceID)
                xml.element("simpleTokenTTL", TokenDate.format(expires))
                xml.element("simpleTokenMsoID", mvpdID)
                xml.fingerprint(deviceFingerprint)
            }
        }
    }

    /// Reads an authorization token body.
    ///
    /// - Throws: ``TokenFormatError`` naming the missing or malformed element.
    public static func parse(body: String) throws(TokenFormatError) -> AuthZToken {
        let root = try XMLNode.tokenRoot(body, named: rootElement)
        return AuthZToken(
            requestorID: try root.required("simpleTokenRequestorID"),
            resourceID: try root.required("simpleTokenResourceID"),
            expires: try root.requiredDate("simpleTokenTTL"),
            mvpdID: try root.required("simpleTokenMsoID"),
            deviceFingerprint: try root.requiredFingerprint()
        )
    }
}
