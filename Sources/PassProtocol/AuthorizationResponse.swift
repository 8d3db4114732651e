import Foundation

/// The answer of `GET /api/v1/authorize` and `GET /api/v1/tokens/authz` (spec §5.4.3 #10–11).
///
/// JSON `{mvpd, resource, requestor, expires}` plus `proxyMvpd` for proxied MVPDs; `expires` is a string of
/// epoch milliseconds. XML root `<authorization>` (our choice; undocumented).
public struct AuthorizationResponse: RESTPayload {
    /// The MVPD that authorized.
    public var mvpd: String
    /// The authorized resource.
    public var resource: String
    /// The requestor.
    public var requestor: String
    /// Expiry of the authorization as a string of epoch milliseconds.
    public var expires: String
    /// The proxy MVPD, only for MVPDs behind a proxy; omitted when `nil`.
    public var proxyMvpd: String?

    /// Creates an answer from its wire fields.
    public init(mvpd: String, resource: String, requestor: String, expires: String, proxyMvpd: String? = nil) {
        self.mvpd = mvpd
        self.resource = resource
        self.requestor = requestor
        self.expires = expires
        self.proxyMvpd = proxyMvpd
    }

    /// Creates an answer, writing `expiresAt` as epoch-millisecond text.
    public init(mvpd: String, resource: String, requestor: String, expiresAt: Date, proxyMvpd: String? = nil) {
        self.init(
            mvpd: mvpd,
            resource: resource,
            requestor: requestor,
            expires: EpochMilliseconds.string(expiresAt),
            proxyMvpd: proxyMvpd
        )
    }

    /// ``expires`` as a date, or `nil` when it is not an integer.
    public var expiresDate: Date? { EpochMilliseconds.date(expires) }

    /// Decodes the JSON; an `expires` sent as a number is accepted and kept as text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mvpd = try container.decode(String.self, forKey: .mvpd)
        resource = try container.decode(String.self, forKey: .resource)
        requestor = try container.decode(String.self, forKey: .requestor)
        expires = try container.lenientString(.expires) ?? ""
        proxyMvpd = try container.decodeIfPresent(String.self, forKey: .proxyMvpd)
    }

    /// `<authorization><mvpd/><resource/><requestor/><expires/>[<proxyMvpd/>]</authorization>`.
    public func xml() -> String {
        XMLWriter.render { xml in
            xml.element("authorization") { xml in
                xml.element("mvpd", mvpd)
                xml.element("resource", resource)
                xml.element("requestor", requestor)
                xml.element("expires", expires)
                xml.optionalElement("proxyMvpd", proxyMvpd)
            }
        }
    }
}
