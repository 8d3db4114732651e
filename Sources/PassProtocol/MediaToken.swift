import Foundation

/// The body of a short media token: `<shortAuthorizationToken>` (seed 002 §Format, spec §6.3).
///
/// Handed to the app by `setToken:forResource:` and forwarded to the Programmer's video server, which checks
/// it with ``MediaTokenVerifier``. Not bound to a device, valid once, never cached.
public struct MediaToken: TokenBody, Codable {
    /// The authentication session GUID (`sessionGUID`), same as the authN token's ``AuthNToken/guid``.
    public var sessionGUID: String
    /// The requestor (`requestorID`).
    public var requestorID: String
    /// The resource the token grants (`resourceID`).
    public var resourceID: String
    /// How long the token lives after ``issueTime``, in milliseconds (`ttl`).
    public var ttlMilliseconds: Int64
    /// When the token was issued (`issueTime`, written as epoch milliseconds).
    public var issueTime: Date
    /// The MVPD that authorized (`mvpdId`).
    public var mvpdID: String
    /// The proxy MVPD, or `""` when the MVPD is not behind a proxy (`proxyMvpdId`).
    public var proxyMvpdID: String

    /// The root element name, `shortAuthorizationToken`.
    public static let rootElement = "shortAuthorizationToken"

    /// Creates a media token body.
    public init(
        sessionGUID: String,
        requestorID: String,
        resourceID: String,
        ttlMilliseconds: Int64,
        issueTime: Date,
        mvpdID: String,
        proxyMvpdID: String = ""
    ) {
        self.sessionGUID = sessionGUID
        self.requestorID = requestorID
        self.resourceID = resourceID
        self.ttlMilliseconds = ttlMilliseconds
        self.issueTime = issueTime
        self.mvpdID = mvpdID
        self.proxyMvpdID = proxyMvpdID
    }

    /// When the token stops being valid: ``issueTime`` plus ``ttlMilliseconds``.
    public var expires: Date {
        issueTime.addingTimeInterval(Double(ttlMilliseconds) / 1000)
    }

    /// Whether the token has expired at `now` (expiry is exclusive: a token expiring now is expired).
    public func isExpired(at now: Date) -> Bool {
        expires <= now
    }

    /// The body as compact XML, in the element order of the seed.
    public var xmlBody: String {
        XMLWriter.render { xml in
            xml.element(Self.rootElement) { xml in
                xml.element("sessionGUID", sessionGUID)
                xml.element("requestorID", requestorID)
                xml.element("resourceID", resourceID)
                xml.element("ttl", String(ttlMilliseconds))
                xml.element("issueTime", EpochMilliseconds.string(issueTime))
                xml.element("mvpdId", mvpdID)
                xml.element("proxyMvpdId", proxyMvpdID)
            }
        }
    }

    /// Reads a media token body; a missing `proxyMvpdId` reads as `""`.
    ///
    /// - Throws: ``TokenFormatError`` naming the missing or malformed element.
    public static func parse(body: String) throws(TokenFormatError) -> MediaToken {
        let root = try XMLNode.tokenRoot(body, named: rootElement)
        return MediaToken(
            sessionGUID: try root.required("sessionGUID"),
            requestorID: try root.required("requestorID"),
            resourceID: try root.required("resourceID"),
            ttlMilliseconds: try root.requiredInteger("ttl"),
            issueTime: EpochMilliseconds.date(try root.requiredInteger("issueTime")),
            mvpdID: try root.required("mvpdId"),
            proxyMvpdID: root.text(of: "proxyMvpdId") ?? ""
        )
    }
}
