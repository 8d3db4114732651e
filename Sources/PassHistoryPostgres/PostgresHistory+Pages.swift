import PassEvents
import Foundation
import PassHistory
import PostgresNIO

extension PostgresHistory {
    /// One page of the events matching `filter`, in the order they were stored, starting after `cursor` (`nil`: the
    /// first page). At most `limit` events.
    public func page(matching filter: HistoryFilter = .all, after cursor: Int64? = nil, limit: Int = 100) async throws -> HistoryPage {
        try await decodedPage(matching: filter, above: cursor ?? 0, below: .max, newestFirst: false, limit: limit)
    }

    /// The newest events matching `filter` older than `cursor` (`nil`: the newest of all), newest first.
    public func latestPage(matching filter: HistoryFilter = .all, before cursor: Int64? = nil, limit: Int = 100) async throws -> HistoryPage {
        try await decodedPage(matching: filter, above: 0, below: cursor ?? .max, newestFirst: true, limit: limit)
    }

    /// As ``latestPage(matching:before:limit:)`` (or, with `after`, ``page(matching:after:limit:)``): the stored views
    /// joined with commas, not decoded.
    public func rawPage(matching filter: HistoryFilter, before: Int64? = nil, after: Int64? = nil, limit: Int = 100) async throws
        -> (events: RawEventList, nextCursor: Int64?)
    {
        let limit = max(1, limit)
        let rows = try await select("id, payload", matching: filter, above: after ?? 0, below: after == nil ? before ?? .max : .max,
            newestFirst: after == nil, limit: limit + 1)
        var list = RawEventList()
        list.ids.reserveCapacity(min(limit, 1000))
        for (id, payload) in try rows.decode((Int64, String).self) {
            if list.ids.count == limit { return (list, list.ids.last) }
            if !list.ids.isEmpty { list.json.append(UInt8(ascii: ",")) }
            list.ids.append(id)
            list.json.append(contentsOf: payload.utf8)
        }
        return (list, nil)
    }

    /// How many stored events match `filter`.
    public func count(matching filter: HistoryFilter) async throws -> Int {
        if filter.isEmpty { return try await eventCount }
        var query = PostgresQueryBuilder()
        query.sql = "SELECT count(*) FROM event WHERE " + filter.postgresCondition(&query)
        return try await client.query(query.query, logger: logger).collectColumn(Int.self).first ?? 0
    }

    /// How many events the history holds: the sum of the sessions' counts, kept current by every write.
    public var eventCount: Int {
        get async throws {
            try await client.query("SELECT COALESCE(SUM(event_count), 0)::bigint FROM session", logger: logger).collectColumn(Int.self).first ?? 0
        }
    }

    /// The ID of the newest stored event (`nil` when empty).
    public func latestCursor() async throws -> Int64? {
        try await client.query("SELECT max(id) FROM event", logger: logger).collectColumn(Int64?.self).first ?? nil
    }

    func decodedPage(matching filter: HistoryFilter, above lower: Int64, below upper: Int64, newestFirst: Bool, limit: Int)
        async throws -> HistoryPage
    {
        let limit = max(1, limit)
        let rows = try await select("id, timestamp, summary, payload", matching: filter, above: lower, below: upper, newestFirst: newestFirst,
            limit: limit + 1)
        let decoder = EventCoding.viewDecoder
        var events: [StoredEvent] = []
        var more = false
        for (id, timestamp, summary, payload) in try rows.decode((Int64, Double, String, String).self) {
            if events.count == limit {
                more = true
                break
            }
            events.append(StoredEvent(id: id, summary: summary, event: try EventView.event(fromView: payload, timestamp: timestamp,
                decoder: decoder)))
        }
        return HistoryPage(events: events, nextCursor: more ? events.last?.id : nil)
    }

    /// `columns` of the events matching `filter` with `lower < id < upper`, newest or oldest first, at most `limit`.
    func select(_ columns: String, matching filter: HistoryFilter, above lower: Int64, below upper: Int64, newestFirst: Bool, limit: Int)
        async throws -> [PostgresRow]
    {
        try await client.query(Self.pageQuery(columns, matching: filter, above: lower, below: upper, newestFirst: newestFirst, limit: limit),
            logger: logger)
    }

    /// The SQL of a page: one statement, whose condition PostgreSQL answers through the filter's index.
    static func pageQuery(_ columns: String, matching filter: HistoryFilter, above lower: Int64, below upper: Int64, newestFirst: Bool,
        limit: Int) -> PostgresQuery
    {
        var query = PostgresQueryBuilder()
        var condition = filter.postgresCondition(&query)
        if lower > 0 { condition += " AND id > \(query.bind(lower))" }
        if upper < .max { condition += " AND id < \(query.bind(upper))" }
        query.sql = "SELECT \(columns) FROM event WHERE \(condition) ORDER BY id \(newestFirst ? "DESC" : "ASC") LIMIT \(query.bind(limit))"
        return query.query
    }

    /// PostgreSQL's plan for the newest page of `filter` (`EXPLAIN`, one line per step), after refreshing the
    /// statistics: what the index tests read.
    /// With `bitmapOnly`, plain index walks are off too, so the plan must name an index that answers the filter
    /// itself (a rare text: on a test's few thousand rows the planner may walk the primary key backwards instead,
    /// which at a team's millions it would not).
    package func newestPagePlan(matching filter: HistoryFilter, limit: Int = 200, bitmapOnly: Bool = false) async throws -> [String] {
        try await client.query("ANALYZE event", logger: logger)
        try await client.query("ANALYZE session", logger: logger)
        var query = Self.pageQuery("id", matching: filter, above: 0, below: .max, newestFirst: true, limit: limit + 1)
        query.sql = "EXPLAIN " + query.sql
        // Sequential scans off for this plan: a test's table holds thousands of rows, where reading them all is
        // cheaper and the planner rightly picks it (it did, at random, by the sample ANALYZE took); at a team's
        // millions it picks the index. The plan shows which index serves the filter when one must.
        let logger = self.logger, explained = query
        return try await client.withConnection { connection in
            _ = try await connection.query("SET enable_seqscan = off", logger: logger)
            if bitmapOnly { _ = try await connection.query("SET enable_indexscan = off", logger: logger) }
            let plan = try await connection.query(explained, logger: logger).collectColumn(String.self)
            _ = try await connection.query("RESET enable_seqscan", logger: logger)
            _ = try await connection.query("RESET enable_indexscan", logger: logger)
            return plan
        }
    }
}
