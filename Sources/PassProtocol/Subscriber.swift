import Foundation

/// A demo subscriber of one MVPD: the credentials its login page takes, the user ID it asserts, its package.
///
/// The stand-in backend signs people in with it (`Config/demo.json`'s `subscribers`), and the console's session replay
/// signs in with one when no credentials are given: one model for both.
public struct Subscriber: Codable, Sendable, Equatable {
    /// The MVPD the subscriber belongs to.
    public var mvpd: String
    /// What the subscriber types on the MVPD's login page.
    public var username: String
    /// The password for ``username``.
    public var password: String
    /// The user ID the MVPD asserts (`userId` in REST answers).
    public var userID: String
    /// Resource IDs this subscriber may watch (`*` for all).
    public var entitlements: [String]
    /// User metadata (`zip`, `householdID`, `maxRating`, …).
    public var metadata: [String: JSONValue]

    /// Creates a subscriber; `userID` defaults to `<mvpd>-<username>`.
    public init(
        mvpd: String, username: String, password: String, userID: String? = nil, entitlements: [String],
        metadata: [String: JSONValue] = [:]
    ) {
        self.mvpd = mvpd
        self.username = username
        self.password = password
        self.userID = userID ?? "\(mvpd)-\(username)"
        self.entitlements = entitlements
        self.metadata = metadata
    }

    /// Decodes a subscriber as `Config/demo.json` writes it: `userID`, `entitlements` and `metadata` may be left out.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mvpd = try c.decode(String.self, forKey: .mvpd)
        username = try c.decode(String.self, forKey: .username)
        password = try c.decode(String.self, forKey: .password)
        userID = try c.decodeIfPresent(String.self, forKey: .userID) ?? "\(mvpd)-\(username)"
        entitlements = try c.decodeIfPresent([String].self, forKey: .entitlements) ?? []
        metadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .metadata) ?? [:]
    }

    /// Whether this subscriber's package includes `resource`.
    public func isEntitled(to resource: String) -> Bool {
        entitlements.contains("*") || entitlements.contains(resource)
    }
}
