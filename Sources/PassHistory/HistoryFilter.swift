import PassEvents
import Foundation
import GRDB

/// Which events a history query returns. Every criterion left `nil` (or `kinds` empty) matches everything;
/// the others must all match. ``request(after:upTo:)`` is the SQL that decides whether an event matches; every
/// criterion but the text has an index SQLite answers it through (schema v6).
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

        /// The class as SQL on the `httpStatus` column, in the form of its index: `httpStatus / 100 = 4` for 4xx
        /// (`event_on_statusClass`; for integers the same as 400…499), `httpStatus = 0` for no answer, and the exact
        /// condition of the partial index `event_on_errorStatus` for `error`.
        var sqlCondition: String {
            switch self {
            case .success: "httpStatus IS NOT NULL AND httpStatus / 100 = 2"
            case .redirect: "httpStatus IS NOT NULL AND httpStatus / 100 = 3"
            case .clientError: "httpStatus IS NOT NULL AND httpStatus / 100 = 4"
            case .serverError: "httpStatus IS NOT NULL AND httpStatus / 100 = 5"
            case .failed: "httpStatus = 0"
            case .error: "(httpStatus < 200 OR httpStatus >= 400)"
            }
        }

        /// The `httpStatus` column values of the class.
        package var sqlRange: (low: Int, high: Int)? {
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

    /// The filter applied to `event` rows with `id` in `(after, upTo]`, in `id` order (see ``sqlCondition``).
    func request(after cursor: Int64?, upTo last: Int64? = nil) -> QueryInterfaceRequest<EventRecord> {
        typealias C = EventRecord.Columns
        var request = EventRecord.all()
        if let cursor { request = request.filter(C.id > cursor) }
        if let last { request = request.filter(C.id <= last) }
        let (condition, arguments) = sqlCondition
        if condition != "1" { request = request.filter(sql: condition, arguments: arguments) }
        return request.order(C.id)
    }

    /// The definition of a match: a condition on an `event` row (`"1"` for a filter that matches everything) and its
    /// arguments. The device and app are the session's, carried by each event (schema v9); the session is named by its
    /// key. Written as the indexes of schemas v6 and v9 are, literals included where an index has them, so SQLite can
    /// use them.
    var sqlCondition: (sql: String, arguments: StatementArguments) {
        var terms: [String] = []
        var arguments: StatementArguments = []
        func add(_ term: String, _ values: StatementArguments = []) {
            terms.append(term)
            arguments += values
        }
        if let sessionID { add("sessionKey = (SELECT key FROM session WHERE id = ?)", [sessionID.uuidString]) }
        if let deviceID { add("deviceID = ? COLLATE NOCASE", [deviceID]) }
        if let requestorID { add("requestorID = ? COLLATE NOCASE", [requestorID]) }
        if let mvpdID { add("mvpdID = ? COLLATE NOCASE", [mvpdID]) }
        if !kinds.isEmpty {
            let (marks, values) = Self.list(Set(kinds.map(\.rawValue)))
            add("kind IN (\(marks))", values)
        }
        if let text, !text.isEmpty { add("summary LIKE ? ESCAPE '\\'", ["%\(Self.escapeLike(text))%"]) }
        if let from { add("timestamp >= ?", [EventRecord.timestampColumn(from)]) }
        if let until { add("timestamp < ?", [EventRecord.timestampColumn(until)]) }
        if let bundleID { add("bundleID = ? COLLATE NOCASE", [bundleID]) }
        if let httpStatus { add(httpStatus.sqlCondition) }
        if let codes = httpStatusCodes {
            if codes.count == 1 { add("httpStatus = ?", [codes.lowerBound]) } else { add("httpStatus BETWEEN ? AND ?", [codes.lowerBound, codes.upperBound]) }
        }
        // `IS NULL OR NOT IN`: an event that names no Programmer (or MVPD) is not one of the excluded ones.
        if !excludedRequestorIDs.isEmpty {
            let (marks, values) = Self.list(excludedRequestorIDs)
            add("(requestorID IS NULL OR requestorID COLLATE NOCASE NOT IN (\(marks)))", values)
        }
        if !excludedMvpdIDs.isEmpty {
            let (marks, values) = Self.list(excludedMvpdIDs)
            add("(mvpdID IS NULL OR mvpdID COLLATE NOCASE NOT IN (\(marks)))", values)
        }
        if !excludedKinds.isEmpty {
            let (marks, values) = Self.list(Set(excludedKinds.map(\.rawValue)))
            add("kind NOT IN (\(marks))", values)
        }
        if !excludedBundleIDs.isEmpty {
            let (marks, values) = Self.list(excludedBundleIDs)
            add("(bundleID IS NULL OR bundleID COLLATE NOCASE NOT IN (\(marks)))", values)
        }
        return (terms.isEmpty ? "1" : terms.joined(separator: " AND "), arguments)
    }

    /// `?, ?, …` and the values in order, for an SQL `IN` list.
    static func list(_ values: Set<String>) -> (marks: String, arguments: StatementArguments) {
        let sorted = values.sorted()
        return (Array(repeating: "?", count: sorted.count).joined(separator: ","), StatementArguments(sorted))
    }

    package static func escapeLike(_ text: String) -> String {
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
