import PassEvents
import Foundation
import GRDB

/// One app instance's run as the history knows it: a row of the `session` table, kept up to date by
/// ``HistoryDatabase/append(_:)``.
public struct HistorySession: Codable, Sendable, Equatable, Identifiable {
    /// The session ID of its events.
    public var id: UUID
    /// The device ID the SDK computed for the app.
    public var deviceID: String
    /// The app's bundle ID.
    public var bundleID: String
    /// The app's team (bundle seed) ID.
    public var teamID: String
    /// The app's platform (an SDK session's; iOS for the other kinds, which have no device storage).
    public var platform: Platform
    /// The kind of client: the SDK's platform, or what the backend or a proxy saw (web, REST v1, …). Not in the
    /// encoded value (older support bundles lack it): lists add it (the Sessions list's `client`).
    public var client: ClientKind = .ios
    /// The latest Programmer its events named, if any.
    public var requestorID: String?
    /// The earliest event's timestamp.
    public var firstSeen: Date
    /// The latest event's timestamp.
    public var lastSeen: Date
    /// How many events of this session the history holds.
    public var eventCount: Int
    /// The latest MVPD its events named, if any.
    public var mvpdID: String?
    /// The latest user ID (the authentication token's GUID, as the Tokens page shows it) its events named, if any.
    public var userID: String?
    /// The latest user ID hash its tracking data reported (``TrackingEvent/userHash(of:)``), if any: the user ID of a
    /// session that signed in but never asked for a media token.
    public var trackingHash: String?
    /// Its last decisive outcome (``SessionOutcome/Tracker/settled``); `nil` in values from older support bundles.
    public var settledOutcome: SessionOutcome?
    /// Since when a flow of it has been waiting, if one is.
    public var waitingSince: Date?

    /// Creates a session value.
    public init(
        id: UUID, deviceID: String, bundleID: String, teamID: String, platform: Platform, requestorID: String?,
        firstSeen: Date, lastSeen: Date, eventCount: Int, mvpdID: String? = nil, userID: String? = nil, trackingHash: String? = nil,
        settledOutcome: SessionOutcome? = nil, waitingSince: Date? = nil, client: ClientKind? = nil
    ) {
        self.client = client ?? ClientKind(platform: platform)
        self.id = id
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.teamID = teamID
        self.platform = platform
        self.requestorID = requestorID
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.eventCount = eventCount
        self.mvpdID = mvpdID
        self.userID = userID
        self.trackingHash = trackingHash
        self.settledOutcome = settledOutcome
        self.waitingSince = waitingSince
    }

    /// How the run stands as of `now` (waiting turns into stuck), by ``SessionOutcome/Tracker``'s rule.
    public func outcome(at now: Date) -> SessionOutcome {
        SessionOutcome.Tracker(settled: settledOutcome ?? .started, waitingSince: waitingSince).outcome(at: now)
    }

    /// The encoded fields: the user ID and tracking hash are personal data, left out of every value encoded whole
    /// (support bundles, exports); a list that shows them adds them on purpose.
    private enum CodingKeys: String, CodingKey {
        case id, deviceID, bundleID, teamID, platform, requestorID, firstSeen, lastSeen, eventCount, mvpdID, settledOutcome,
            waitingSince
    }

    /// The app that produced the session's events.
    public var app: AppIdentity { AppIdentity(bundleID: bundleID, teamID: teamID, platform: platform) }
}

extension HistorySession: FetchableRecord, TableRecord {
    /// The table's name.
    public static let databaseTableName = "session"

    /// Reads a `session` row (dates are `REAL` seconds since 1970, the ID is its uppercase string).
    public init(row: Row) throws {
        guard let id = UUID(uuidString: row["id"]) else {
            throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "session id is not a UUID")
        }
        // The `platform` column holds the client kind (an SDK session's is its platform's own value).
        let client = ClientKind(rawValue: row["platform"])
        let waiting: Double? = row["waitingSince"]
        self.init(
            id: id, deviceID: row["deviceID"], bundleID: row["bundleID"], teamID: row["teamID"], platform: client.sdkPlatform ?? .iOS,
            requestorID: row["requestorID"], firstSeen: Date(timeIntervalSince1970: row["firstSeen"]),
            lastSeen: Date(timeIntervalSince1970: row["lastSeen"]), eventCount: row["eventCount"], mvpdID: row["mvpdID"],
            userID: row["userID"], trackingHash: row["trackingHash"], settledOutcome: (row["outcome"] as String?).flatMap(SessionOutcome.init(rawValue:)),
            waitingSince: waiting.map(Date.init(timeIntervalSince1970:)), client: client)
    }
}
