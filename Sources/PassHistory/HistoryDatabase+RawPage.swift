import AccessEnabler
import Foundation
import GRDB

/// A stored event as its row holds it, for answers that pass the stored JSON through instead of decoding it (a
/// page of HTTP exchanges decoded with `JSONDecoder` cost ~150 µs per event).
public struct RawStoredEvent: Sendable, Equatable {
    /// The HTTP fields a network list shows, read by SQLite from the stored JSON: the SDK's own summary of an exchange.
    public typealias HTTP = HTTPExchange.Summary

    public var id: Int64
    public var summary: String
    /// The ``EventKind`` raw value.
    public var kind: String
    /// The event's stored JSON (dates as seconds since 2001).
    public var payload: String
    public var http: HTTP?
}

/// One page for a list: the events and the counts a "filter on: N hidden" cue needs, read in one transaction.
public struct RawPage: Sendable {
    public var events: [RawStoredEvent]
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
            let found = try BlockScan.count(db, matching: filter, limit: countLimit + 1)
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
            let found = filter.isEmpty ? total : try BlockScan.count(db, matching: filter, limit: countLimit + 1)
            let below = before ?? .max
            guard let anchor = try BlockScan.ids(db, matching: filter, above: 0, below: below, newestFirst: true, limit: 1).first,
                let newest = try Double.fetchOne(db, sql: "SELECT timestamp FROM event WHERE id = ?", arguments: [anchor])
            else {
                return RawPage(events: [], nextCursor: nil, total: total, matching: min(found, countLimit), matchingCapped: found > countLimit)
            }
            let start = newest - seconds
            var older = filter
            older.until = Date(timeIntervalSince1970: start)
            let boundary = try BlockScan.ids(db, matching: older, above: 0, below: below, newestFirst: true, limit: 1).first ?? 0
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
        let ids = try BlockScan.ids(db, matching: filter, above: above, below: below, newestFirst: newestFirst, limit: limit + 1)
        let exchange = "$.kind.httpExchange.exchange"
        let order = newestFirst ? "DESC" : "ASC"
        let rows = ids.isEmpty ? [] : try Row.fetchAll(db, sql: """
                SELECT id, summary, kind, payload, httpStatus,
                    CASE WHEN kind = 'httpExchange' THEN json_extract(payload, '\(exchange).method') END AS httpMethod,
                    CASE WHEN kind = 'httpExchange' THEN json_extract(payload, '\(exchange).url') END AS httpURL,
                    CASE WHEN kind = 'httpExchange' THEN json_extract(payload, '\(exchange).durationMs') END AS httpDuration,
                    CASE WHEN kind = 'httpExchange' THEN json_extract(payload, '\(exchange).failure') END AS httpFailure
                FROM event WHERE id IN (\(ids.map(String.init).joined(separator: ","))) ORDER BY id \(order)
                """)
        // Columns by position: by name, GRDB lowercases the name on every read.
        let events = rows.prefix(limit).map { row -> RawStoredEvent in
            var http: RawStoredEvent.HTTP?
            if let method: String = row[5] {
                let status: Int? = row[4]
                http = RawStoredEvent.HTTP(
                    method: method, url: row[6] ?? "", status: status == 0 ? nil : status, durationMs: row[7] ?? 0, failure: row[8])
            }
            return RawStoredEvent(id: row[0], summary: row[1], kind: row[2], payload: row[3], http: http)
        }
        return (events, rows.count > limit ? events.last?.id : nil)
    }
}
