import AccessEnabler
import Foundation
import GRDB

/// A stored event as its row holds it, for answers that pass the stored JSON through instead of decoding it (a
/// page of HTTP exchanges decoded with `JSONDecoder` cost ~150 µs per event).
public struct RawStoredEvent: Sendable, Equatable {
    /// The HTTP fields a network list shows, read by SQLite from the stored JSON: the SDK's own summary of an exchange.
    public typealias HTTP = HTTPExchange.Summary

    /// The event's ID in the history (its place in the order of arrival).
    public var id: Int64
    /// The one-line summary lists show.
    public var summary: String
    /// The ``EventKind`` raw value.
    public var kind: String
    /// The event's stored JSON (dates as seconds since 2001).
    public var payload: String
    /// For an HTTP exchange, the fields a network list shows; nil for other events.
    public var http: HTTP?
}

/// A stored row for the live feed: the event as stored, and (when read with them) the facts a filter decides on.
public struct RawEventRow: Sendable {
    /// The event as stored.
    public var event: RawStoredEvent
    /// Read by ``HistoryDatabase/newRawEvents(matching:after:upTo:limit:)``; `nil` from the page reads.
    public var facts: EventFacts?
}

/// One page for a list: the events and the counts a "filter on: N hidden" cue needs, read in one transaction.
public struct RawPage: Sendable {
    /// The page's events, newest first.
    public var events: [RawStoredEvent]
    /// Where the next (older) page starts; nil when this is the last.
    public var nextCursor: Int64?
    /// Every stored event.
    public var total: Int
    /// Events matching the filter (at most `countLimit`).
    public var matching: Int
    /// True when counting stopped at `countLimit`.
    public var matchingCapped: Bool
    /// For a page read by time window: the span it covers, oldest first.
    public var window: ClosedRange<Date>? = nil
}

extension HistoryDatabase {
    /// A page and its counts in one read transaction (one pool hop instead of three per request).
    public func rawPageWithCounts(
        matching filter: HistoryFilter, before: Int64? = nil, after: Int64? = nil, limit: Int = 100, countLimit: Int = 100_000
    ) async throws -> RawPage {
        try await writer.read { db in
            let (events, next) = try Self.rawPage(db, matching: filter, before: before, after: after, limit: limit)
            let total = try Self.totalEvents(db)
            if filter.isEmpty {
                return RawPage(events: events, nextCursor: next, total: total, matching: total, matchingCapped: false)
            }
            // Counting stops past `countLimit`: a broad filter over a million events would walk them all.
            let found = try filter.count(db, limit: countLimit + 1)
            return RawPage(events: events, nextCursor: next, total: total, matching: min(found, countLimit),
                matchingCapped: found > countLimit)
        }
    }

    /// The page of the events matching `filter` before `before` (newest first) that lie within `seconds` of the newest
    /// of them, with its counts: what "Load older" adds. When no event is that close, the window starts at the next
    /// older event, so a click never comes back empty while older events exist. At most `limit` events: past it,
    /// `nextCursor` continues within the same window.
    ///
    /// The page is a contiguous run of the matching events in ID order (events can arrive out of time order): it stops
    /// above the newest matching event older than the window, so the next page misses none.
    public func rawWindowPageWithCounts(
        matching filter: HistoryFilter, before: Int64?, seconds: TimeInterval, limit: Int = 2000, countLimit: Int = 100_000
    ) async throws -> RawPage {
        try await writer.read { db in
            let total = try Self.totalEvents(db)
            let found = filter.isEmpty ? total : try filter.count(db, limit: countLimit + 1)
            let below = before ?? .max
            guard let anchor = try filter.ids(db, above: 0, below: below, newestFirst: true, limit: 1).first,
                let newest = try Double.fetchOne(db, sql: "SELECT timestamp FROM event WHERE id = ?", arguments: [anchor])
            else {
                return RawPage(events: [], nextCursor: nil, total: total, matching: min(found, countLimit), matchingCapped: found > countLimit)
            }
            let start = newest - seconds
            var older = filter
            older.until = Date(timeIntervalSince1970: start)
            let boundary = try older.ids(db, above: 0, below: below, newestFirst: true, limit: 1).first ?? 0
            let (events, next) = try Self.rawPage(db, matching: filter, above: boundary, below: below, newestFirst: true, limit: limit)
            let window = Date(timeIntervalSince1970: start)...Date(timeIntervalSince1970: newest)
            return RawPage(events: events, nextCursor: next ?? (boundary > 0 ? events.last?.id : nil), total: total,
                matching: min(found, countLimit), matchingCapped: found > countLimit, window: window)
        }
    }

    /// As ``latestPage(matching:before:limit:)`` (or, with `after`, ``page(matching:after:limit:)``), without decoding.
    public func rawPage(matching filter: HistoryFilter, before: Int64? = nil, after: Int64? = nil, limit: Int = 100) async throws
        -> (events: [RawStoredEvent], nextCursor: Int64?)
    {
        try await writer.read { db in try Self.rawPage(db, matching: filter, before: before, after: after, limit: limit) }
    }

    static func rawPage(_ db: Database, matching filter: HistoryFilter, before: Int64?, after: Int64?, limit: Int) throws
        -> (events: [RawStoredEvent], nextCursor: Int64?)
    {
        try rawPage(db, matching: filter, above: after ?? 0, below: after == nil ? before ?? .max : .max, newestFirst: after == nil,
            limit: limit)
    }

    /// The events matching `filter` with `above < id < below`, newest or oldest first, at most `limit`; the cursor of
    /// the next page when there are more.
    static func rawPage(_ db: Database, matching filter: HistoryFilter, above: Int64, below: Int64, newestFirst: Bool, limit: Int) throws
        -> (events: [RawStoredEvent], nextCursor: Int64?)
    {
        let limit = max(1, limit)
        let ids = try filter.ids(db, above: above, below: below, newestFirst: newestFirst, limit: limit + 1)
        let rows = try rawRows(db, ids: ids, newestFirst: newestFirst, facts: false)
        let events = rows.prefix(limit).map(\.event)
        return (events, rows.count > limit ? events.last?.id : nil)
    }

    /// Up to `limit` rows matching `filter` in `(cursor, last]`, oldest first, with their ``EventFacts``, and how far
    /// the read got (`last` once nothing more matches up to it): what the live feed reads after a commit, or for a
    /// client's gap. Nothing is decoded: the feed filters on the facts and sends the stored JSON.
    public func newRawEvents(
        matching filter: HistoryFilter = .all, after cursor: Int64, upTo last: Int64, limit: Int = 1000
    ) async throws -> (events: [RawEventRow], reached: Int64) {
        guard cursor < last else { return ([], cursor) }
        let limit = max(1, limit)
        let rows = try await writer.read { db in
            let ids = try filter.ids(db, above: cursor, below: last + 1, newestFirst: false, limit: limit)
            return try Self.rawRows(db, ids: ids, newestFirst: false, facts: true)
        }
        // A short batch means nothing else matches up to `last`.
        return (rows, rows.count < limit ? last : (rows.last?.event.id ?? last))
    }

    /// The rows with these IDs, in ID order; with `facts`, each with its ``EventFacts`` (a join with its session).
    static func rawRows(_ db: Database, ids: [Int64], newestFirst: Bool, facts: Bool) throws -> [RawEventRow] {
        guard !ids.isEmpty else { return [] }
        let exchange = "$.kind.httpExchange.exchange"
        let order = newestFirst ? "DESC" : "ASC"
        let factColumns = facts ? ", session.id, session.deviceID, session.bundleID, event.requestorID, event.mvpdID, event.timestamp" : ""
        let join = facts ? "JOIN session ON session.key = event.sessionKey" : ""
        let rows = try Row.fetchAll(db, sql: """
            SELECT event.id, event.summary, event.kind, event.payload, event.httpStatus,
                CASE WHEN event.kind = 'httpExchange' THEN json_extract(event.payload, '\(exchange).method') END AS httpMethod,
                CASE WHEN event.kind = 'httpExchange' THEN json_extract(event.payload, '\(exchange).url') END AS httpURL,
                CASE WHEN event.kind = 'httpExchange' THEN json_extract(event.payload, '\(exchange).durationMs') END AS httpDuration,
                CASE WHEN event.kind = 'httpExchange' THEN json_extract(event.payload, '\(exchange).failure') END AS httpFailure
                \(factColumns)
            FROM event \(join) WHERE event.id IN (\(ids.map(String.init).joined(separator: ","))) ORDER BY event.id \(order)
            """)
        // Columns by position: by name, GRDB lowercases the name on every read.
        return rows.map { row -> RawEventRow in
            var http: RawStoredEvent.HTTP?
            let status: Int? = row[4]
            if let method: String = row[5] {
                http = RawStoredEvent.HTTP(
                    method: method, url: row[6] ?? "", status: status == 0 ? nil : status, durationMs: row[7] ?? 0, failure: row[8])
            }
            let event = RawStoredEvent(id: row[0], summary: row[1], kind: row[2], payload: row[3], http: http)
            guard facts else { return RawEventRow(event: event, facts: nil) }
            let sessionID: String = row[9]
            return RawEventRow(event: event, facts: EventFacts(
                sessionID: UUID(uuidString: sessionID) ?? UUID(), deviceID: row[10], bundleID: row[11], requestorID: row[12],
                mvpdID: row[13], kind: EventKind(rawValue: event.kind) ?? .error, summary: event.summary, timestamp: row[14],
                httpStatus: status))
        }
    }
}
