import PassEvents
import Foundation
import PassHistory
import PostgresNIO

extension PostgresHistory {
    /// A page and its counts, read in one snapshot (a repeatable-read transaction), as the console's list asks.
    public func rawPageWithCounts(
        matching filter: HistoryFilter, before: Int64? = nil, after: Int64? = nil, limit: Int = 100, countLimit: Int = 100_000
    ) async throws -> RawPage {
        try await snapshot { connection in
            let (events, next) = try await Self.rawList(connection, matching: filter, above: after ?? 0,
                below: after == nil ? before ?? .max : .max, newestFirst: after == nil, limit: limit, logger: self.logger)
            let total = try await Self.totalEvents(connection, logger: self.logger)
            if filter.isEmpty {
                return RawPage(events: events, nextCursor: next, total: total, matching: total, matchingCapped: false)
            }
            // Counting stops past `countLimit`: a broad filter over millions of events would walk them all.
            let found = try await Self.count(connection, matching: filter, limit: countLimit + 1, logger: self.logger)
            return RawPage(events: events, nextCursor: next, total: total, matching: min(found, countLimit), matchingCapped: found > countLimit)
        }
    }

    /// The page of the events matching `filter` before `before` (newest first) within `seconds` of the newest of them,
    /// with its counts: the SQLite history's rule (``HistoryDatabase/rawWindowPageWithCounts(matching:before:seconds:limit:countLimit:)``),
    /// in one snapshot.
    public func rawWindowPageWithCounts(
        matching filter: HistoryFilter, before: Int64?, seconds: TimeInterval, limit: Int = 2000, countLimit: Int = 100_000
    ) async throws -> RawPage {
        try await snapshot { connection in
            let total = try await Self.totalEvents(connection, logger: self.logger)
            let found = filter.isEmpty ? total : try await Self.count(connection, matching: filter, limit: countLimit + 1, logger: self.logger)
            let below = before ?? .max
            guard let (_, newest) = try await Self.newest(connection, matching: filter, below: below, logger: self.logger) else {
                return RawPage(events: RawEventList(), nextCursor: nil, total: total, matching: min(found, countLimit),
                    matchingCapped: found > countLimit)
            }
            let start = newest - seconds
            var older = filter
            older.until = EventRecord.date(ofTimestampColumn: start)
            let boundary = try await Self.newest(connection, matching: older, below: below, logger: self.logger)?.id ?? 0
            let (events, next) = try await Self.rawList(connection, matching: filter, above: boundary, below: below, newestFirst: true,
                limit: limit, logger: self.logger)
            let window = EventRecord.date(ofTimestampColumn: start)...EventRecord.date(ofTimestampColumn: newest)
            return RawPage(events: events, nextCursor: next ?? (boundary > 0 ? events.ids.last : nil), total: total,
                matching: min(found, countLimit), matchingCapped: found > countLimit, window: window)
        }
    }

    /// Up to `limit` rows matching `filter` in `(cursor, last]`, oldest first, with their ``EventFacts``, and how far
    /// the read got (`last` once nothing more matches up to it): what the live feed reads after a commit.
    public func newRawEvents(
        matching filter: HistoryFilter = .all, after cursor: Int64, upTo last: Int64, limit: Int = 1000
    ) async throws -> (events: [RawEventRow], reached: Int64) {
        guard cursor < last else { return ([], cursor) }
        let limit = max(1, limit)
        var query = Self.pageQuery("id, payload, kind, summary, http_status, session_key, requestor_id, mvpd_id, timestamp", matching: filter,
            above: cursor, below: last + 1, newestFirst: false, limit: limit)
        // The session's ID, device and app beside each row (one join, not a read per session).
        query.sql = """
            SELECT page.*, s.id, s.device_id, s.bundle_id FROM (\(query.sql)) page
            LEFT JOIN session s ON s.key = page.session_key ORDER BY page.id
            """
        var rows: [RawEventRow] = []
        for row in try await client.query(query, logger: logger) {
            let (id, payload, kind, summary, status, _, requestorID, mvpdID, timestamp, sessionID, deviceID, bundleID) = try row.decode(
                (Int64, String, String, String, Int?, Int64, String?, String?, Double, UUID?, String?, String?).self)
            rows.append(RawEventRow(id: id, view: payload, facts: EventFacts(
                sessionID: sessionID ?? UUID(), deviceID: deviceID ?? "", bundleID: bundleID ?? "", requestorID: requestorID, mvpdID: mvpdID,
                kind: EventKind(rawValue: kind) ?? .error, summary: summary, timestamp: timestamp, httpStatus: status)))
        }
        // A short batch means nothing else matches up to `last`.
        return (rows, rows.count < limit ? last : (rows.last?.id ?? last))
    }

    // MARK: - Reads on one connection

    /// Runs `body` in a read-only repeatable-read transaction: every read sees the same committed state.
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withTransaction(logger: logger) { [logger] connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            return try await body(connection)
        }
    }

    /// The stored views of the events matching `filter` with `lower < id < upper`, and the next page's cursor.
    static func rawList(_ connection: PostgresConnection, matching filter: HistoryFilter, above lower: Int64, below upper: Int64,
        newestFirst: Bool, limit: Int, logger: Logger) async throws -> (RawEventList, Int64?)
    {
        let limit = max(1, limit)
        var list = RawEventList()
        guard upper > lower, upper - lower > 1 else { return (list, nil) }
        let query = pageQuery("id, payload", matching: filter, above: lower, below: upper, newestFirst: newestFirst, limit: limit + 1)
        for try await (id, payload) in try await connection.query(query, logger: logger).decode((Int64, String).self) {
            if list.ids.count == limit { return (list, list.ids.last) }
            if !list.ids.isEmpty { list.json.append(UInt8(ascii: ",")) }
            list.ids.append(id)
            list.json.append(contentsOf: payload.utf8)
        }
        return (list, nil)
    }

    /// How many events match `filter`, counting stops at `limit`.
    static func count(_ connection: PostgresConnection, matching filter: HistoryFilter, limit: Int, logger: Logger) async throws -> Int {
        var query = PostgresQueryBuilder()
        let condition = filter.postgresCondition(&query)
        query.sql = "SELECT count(*) FROM (SELECT 1 FROM event WHERE \(condition) LIMIT \(query.bind(limit))) matching"
        return try await connection.query(query.query, logger: logger).collectColumn(Int.self).first ?? 0
    }

    /// The sum of the sessions' event counts.
    static func totalEvents(_ connection: PostgresConnection, logger: Logger) async throws -> Int {
        try await connection.query("SELECT COALESCE(SUM(event_count), 0)::bigint FROM session", logger: logger).collectColumn(Int.self).first ?? 0
    }

    /// The ID and time of the newest event matching `filter` below `upper`.
    static func newest(_ connection: PostgresConnection, matching filter: HistoryFilter, below upper: Int64, logger: Logger) async throws
        -> (id: Int64, timestamp: Double)?
    {
        let query = pageQuery("id, timestamp", matching: filter, above: 0, below: upper, newestFirst: true, limit: 1)
        for try await (id, timestamp) in try await connection.query(query, logger: logger).decode((Int64, Double).self) { return (id, timestamp) }
        return nil
    }
}
