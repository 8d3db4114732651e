import AccessEnabler
import Foundation
import GRDB

/// Which events a history query returns. Every criterion left `nil` (or `kinds` empty) matches everything;
/// the others must all match. Each one is served by an index of the `event` table.
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

    /// Matches every event.
    public static let all = HistoryFilter()

    /// The filter applied to `event` rows with `id` in `(after, upTo]`, in `id` order.
    func request(after cursor: Int64?, upTo last: Int64? = nil) -> QueryInterfaceRequest<EventRecord> {
        typealias C = EventRecord.Columns
        var request = EventRecord.all()
        if let cursor { request = request.filter(C.id > cursor) }
        if let last { request = request.filter(C.id <= last) }
        if let sessionID { request = request.filter(C.sessionID == sessionID.uuidString) }
        if let deviceID { request = request.filter(C.deviceID == deviceID) }
        if let requestorID { request = request.filter(C.requestorID == requestorID) }
        if let mvpdID { request = request.filter(C.mvpdID == mvpdID) }
        if !kinds.isEmpty { request = request.filter(kinds.map(\.rawValue).contains(C.kind)) }
        if let text, !text.isEmpty { request = request.filter(C.summary.like("%\(Self.escapeLike(text))%", escape: "\\")) }
        if let from { request = request.filter(C.timestamp >= from.timeIntervalSince1970) }
        if let until { request = request.filter(C.timestamp < until.timeIntervalSince1970) }
        return request.order(C.id)
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
