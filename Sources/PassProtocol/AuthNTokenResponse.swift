import Foundation

/// The answer of `GET /api/v1/tokens/authn` and `GET /api/v1/authenticate/{code}` (spec §5.4.3 #8–9).
///
/// JSON `{requestor, mvpd, userId, expires}` where `expires` is a **string** of epoch milliseconds: real
/// clients concatenate it with text (spec §5.4.1). XML root `<authentication>` (our choice; undocumented).
public struct AuthNTokenResponse: RESTPayload {
    /// The requestor.
    public var requestor: String
    /// The MVPD the user logged in with.
    public var mvpd: String
    /// The user as Adobe sees it (the authN token's session GUID).
    public var userId: String
    /// Expiry as a string of epoch milliseconds.
    public var expires: String

    /// Creates an answer from its wire fields.
    public init(requestor: String, mvpd: String, userId: String, expires: String) {
        self.requestor = requestor
        self.mvpd = mvpd
        self.userId = userId
        self.expires = expires
    }

    /// Creates an answer, writing `expiresAt` as epoch-millisecond text.
    public init(requestor: String, mvpd: String, userId: String, expiresAt: Date) {
        self.init(requestor: requestor, mvpd: mvpd, userId: userId, expires: EpochMilliseconds.string(expiresAt))
    }

    /// ``expires`` as a date, or `nil` when it is not an integer.
    public var expiresDate: Date? { EpochMilliseconds.date(expires) }

    /// Decodes the JSON; an `expires` sent as a number is accepted and kept as text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requestor = try container.decode(String.self, forKey: .requestor)
        mvpd = try container.decode(String.self, forKey: .mvpd)
        userId = try container.decode(String.self, forKey: .userId)
        expires = try container.lenientString(.expires) ?? ""
    }

    /// `<authentication><requestor/><mvpd/><userId/><expires/></authentication>`.
    public func xml() -> String {
        XMLWriter.render { xml in
            xml.element("authentication") { xml in
                xml.element("requestor", requestor)
                xml.element("mvpd", mvpd)
                xml.element("userId", userId)
                xml.element("expires", expires)
            }
        }
    }
}
