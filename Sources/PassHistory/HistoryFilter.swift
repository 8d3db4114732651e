import AccessEnabler
import Foundation
import GRDB

/// Which events a history query returns. Every criterion left `nil` (or `kinds` empty) matches everything;
/// the others must all match. Each criterion but the text is served by the history's block index (``BlockScan``);
/// ``request(after:upTo:)`` is the SQL that decides whether an event matches.
///
/// Programmer, MVPD, app and device IDs (and their exclusions) match whatever the case of ASCII letters, as SQLite's
/// `NOCASE` compares: `mvpd:dish` finds `Dish`. Other letters must match exactly.
public struct HistoryFilter: Codable, Sendable, Equatable {
    /// Only this session's events.
    public var sessionID: UUID?
    /// Only events from this device ID.
    public var deviceID: String?
    /// Only events naming this Programmer.
    public var requestorID: String?
    /// Only events naming this MVPD.
    public var mvpdID: String?
    /// Only events of these kinds (empty: all kinds).
    public var kinds: Set<EventKind>
    /// Only events whose summary contains this text (case-insensitive for ASCII, `%` and `_` taken literally).
    public var text: String?
    /// Only events at or after this time.
    public var from: Date?
    /// Only events before this time.
    public var until: Date?
    /// Only events of this app (bundle ID).
    public var bundleID: String?
    /// Only HTTP exchanges whose status falls in this class.
    public var httpStatus: StatusClass?
    /// Only HTTP exchanges whose status is in this range (`403...403`, `400...499`; 0 is "no answer").
    public var httpStatusCodes: ClosedRange<Int>?
    /// Events naming one of these Programmers are left out.
    public var excludedRequestorIDs: Set<String> = []
    /// Events naming one of these MVPDs are left out.
    public var excludedMvpdIDs: Set<String> = []
    /// Events of these kinds are left out.
    public var excludedKinds: Set<EventKind> = []
    /// Events of these apps are left out.
    public var excludedBundleIDs: Set<String> = []

    /// A class of HTTP answers, as people name them (`4xx`), or `failed` for exchanges that got no answer.
    public enum StatusClass: String, Codable, Sendable, CaseIterable {
        case success = "2xx"
        case redirect = "3xx"
        case clientError = "4xx"
        case serverError = "5xx"
        /// No answer at all (timeout, refused).
        case failed
        /// Anything but 2xx and 3xx: client and server errors and failures.
        case error

        /// The `httpStatus` column values of the class.
        var sqlRange: (low: Int, high: Int)? {
            switch self {
            case .success: (200, 299)
            case .redirect: (300, 399)
            case .clientError: (400, 499)
            case .serverError: (500, 599)
            case .failed: (0, 0)
            case .error: nil
            }
        }
    }

    /// Creates a filter; with no arguments, one that matches every event.
    public init(
        sessionID: UUID? = nil, deviceID: String? = nil, requestorID: String? = nil, mvpdID: String? = nil,
        kinds: Set<EventKind> = [], text: String? = nil, from: Date? = nil, until: Date? = nil
    ) {
        self.sessionID = sessionID
        self.deviceID = deviceID
        self.requestorID = requestorID
        self.mvpdID = mvpdID
        self.kinds = kinds
        self.text = text
        self.from = from
        self.until = until
    }

    /// True when no criterion is set (every event matches).
    public var isEmpty: Bool { self == .all }

    /// Matches every event.
    public static let all = HistoryFilter()

    /// The filter applied to `event` rows with `id` in `(after, upTo]`, in `id` order: the definition of a match,
    /// which the block index narrows down (device, app and session are read from the session row).
    func request(after cursor: Int64?, upTo last: Int64? = nil) -> QueryInterfaceRequest<EventRecord> {
        typealias C = EventRecord.Columns
        var request = EventRecord.all()
        if let cursor { request = request.filter(C.id > cursor) }
        if let last { request = request.filter(C.id <= last) }
        // Device, app and session live on the session row; events name it by its key.
        let key = "sessionKey"
        if let sessionID { request = request.filter(sql: "sessionKey = (SELECT key FROM session WHERE id = ?)", arguments: [sessionID.uuidString]) }
        if let deviceID {
            request = request.filter(sql: "\(key) IN (SELECT key FROM session WHERE deviceID = ? COLLATE NOCASE)", arguments: [deviceID])
        }
        if let requestorID { request = request.filter(sql: "requestorID = ? COLLATE NOCASE", arguments: [requestorID]) }
        if let mvpdID { request = request.filter(sql: "mvpdID = ? COLLATE NOCASE", arguments: [mvpdID]) }
        if !kinds.isEmpty { request = request.filter(kinds.map(\.rawValue).contains(C.kind)) }
        if let text, !text.isEmpty { request = request.filter(C.summary.like("%\(Self.escapeLike(text))%", escape: "\\")) }
        if let from { request = request.filter(C.timestamp >= from.timeIntervalSince1970) }
        if let until { request = request.filter(C.timestamp < until.timeIntervalSince1970) }
        if let bundleID {
            request = request.filter(sql: "\(key) IN (SELECT key FROM session WHERE bundleID = ? COLLATE NOCASE)", arguments: [bundleID])
        }
        if let httpStatus {
            if let range = httpStatus.sqlRange {
                request = request.filter(C.httpStatus >= range.low && C.httpStatus <= range.high)
            } else {
                request = request.filter(C.httpStatus < 200 || C.httpStatus >= 400)
            }
        }
        if let codes = httpStatusCodes {
            request = request.filter(C.httpStatus >= codes.lowerBound && C.httpStatus <= codes.upperBound)
        }
        // `IS NULL OR NOT IN`: an event that names no Programmer (or MVPD) is not one of the excluded ones.
        if !excludedRequestorIDs.isEmpty {
            let (marks, arguments) = Self.list(excludedRequestorIDs)
            request = request.filter(sql: "(requestorID IS NULL OR requestorID COLLATE NOCASE NOT IN (\(marks)))", arguments: arguments)
        }
        if !excludedMvpdIDs.isEmpty {
            let (marks, arguments) = Self.list(excludedMvpdIDs)
            request = request.filter(sql: "(mvpdID IS NULL OR mvpdID COLLATE NOCASE NOT IN (\(marks)))", arguments: arguments)
        }
        if !excludedKinds.isEmpty { request = request.filter(!excludedKinds.map(\.rawValue).contains(C.kind)) }
        if !excludedBundleIDs.isEmpty {
            let (marks, arguments) = Self.list(excludedBundleIDs)
            request = request.filter(
                sql: "sessionKey NOT IN (SELECT key FROM session WHERE bundleID COLLATE NOCASE IN (\(marks)))", arguments: arguments)
        }
        return request.order(C.id)
    }

    /// `?, ?, …` and the values in order, for an SQL `IN` list.
    static func list(_ values: Set<String>) -> (marks: String, arguments: StatementArguments) {
        let sorted = values.sorted()
        return (Array(repeating: "?", count: sorted.count).joined(separator: ","), StatementArguments(sorted))
    }

    static func escapeLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}

/// One page of a history query.
public struct HistoryPage: Codable, Sendable, Equatable {
    /// The matching events, oldest stored first.
    public var events: [StoredEvent]
    /// Pass as `after:` to get the next page; `nil` when this page is the last one.
    public var nextCursor: Int64?

    /// Creates a page value.
    public init(events: [StoredEvent], nextCursor: Int64?) {
        self.events = events
        self.nextCursor = nextCursor
    }
}
