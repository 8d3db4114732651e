import GRDB

extension HistoryFilter {
    /// The IDs of the events matching this filter with `lower < id < upper`, in ID order (descending when
    /// `newestFirst`), at most `limit`: one SQL query, which SQLite answers through the index of the filter's most
    /// selective criterion (schema v6) and stops at `limit`.
    func ids(_ db: Database, above lower: Int64, below upper: Int64, newestFirst: Bool, limit: Int) throws -> [Int64] {
        guard limit > 0, upper > lower, upper - lower > 1 else { return [] }
        let (sql, arguments) = try query(db, select: "id", above: lower, below: upper, newestFirst: newestFirst, limit: limit)
        return try Int64.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }

    /// How many events match, counting stops at `limit` (a broad filter over a million events would walk them all).
    func count(_ db: Database, limit: Int) throws -> Int {
        if isEmpty { return min(try HistoryDatabase.totalEvents(db), limit) }
        let (condition, arguments) = sqlCondition
        return try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM (SELECT 1 FROM event WHERE \(condition) LIMIT ?)"),
            arguments: arguments + [limit]) ?? 0
    }

    /// The SQL of a page: `columns` of the matching events with `lower < id < upper`, newest or oldest first, at most
    /// `limit`, and its arguments. The same text for the same kind of filter, so the statement is prepared once per
    /// connection (`cachedStatement`).
    func query(_ db: Database, select columns: String, above lower: Int64, below upper: Int64, newestFirst: Bool, limit: Int) throws
        -> (sql: String, arguments: StatementArguments)
    {
        let sessionIndex = isEmpty ? nil : try sessionIndexHint(db, limit: limit)
        var (condition, arguments) = sqlCondition(sessionIndex: sessionIndex ?? true)
        // A bound that excludes nothing is left out: SQLite guesses a range on the row ID selects a small part of the
        // table, and would walk the rows instead of using the filter's index.
        if lower > 0 {
            condition += " AND id > ?"
            arguments += [lower]
        }
        if upper < .max {
            condition += " AND id < ?"
            arguments += [upper]
        }
        arguments += [limit]
        let order = "ORDER BY id \(newestFirst ? "DESC" : "ASC")"
        if sessionIndex == true {
            // A device's or an app's matches come out of `event_on_session` session by session, not in ID order: the
            // IDs alone (the index holds them) are sorted and cut to a page, then only the page's rows are read. Sorting
            // whole rows read 20,000 rows of `device:device-42` at 10M events to keep 200 (59 ms a page, 1.2 ms now).
            let ids = "SELECT id FROM event INDEXED BY event_on_session WHERE \(condition) \(order) LIMIT ?"
            return (columns == "id" ? ids : "SELECT \(columns) FROM event WHERE id IN (\(ids)) \(order)", arguments)
        }
        // Without a filter a page is the last (or first) rows in ID order: the table's own order, which SQLite's
        // statistics on a small history sometimes trade for scanning an index and sorting every row (measured: a
        // quarter of a page's CPU at 48 events).
        return ("SELECT \(columns) FROM event\(isEmpty ? " NOT INDEXED" : "") WHERE \(condition) \(order) LIMIT ?", arguments)
    }

    /// Whether a page of a device's or an app's events is read through `event_on_session` (true) or by walking the
    /// events in ID order (false; their device and app terms are then written so no index serves them); `nil` when
    /// the filter names no device or app, or names a session. The sessions' event counts say exactly how many
    /// events `n` match, which SQLite's statistics do not. The index reads `n` entries (ID and session key, no row)
    /// and sorts the IDs; the walk reads `limit × total / n` whole rows to find a page, each measured about five index
    /// entries' worth at 10M events (~3 µs a row, ~0.6 µs an entry with its session's seek). So the index when
    /// `n² < 5 × limit × total`: at 10M events `device:device-42` (1 device in 500, 20,000 events) takes the index
    /// and `app:com.example.app7.ios` (1 app in 40, 250,000) the walk, where SQLite's own choice (the index, sorting
    /// whole rows) took 164 ms a page.
    func sessionIndexHint(_ db: Database, limit: Int) throws -> Bool? {
        guard sessionID == nil, deviceID != nil || bundleID != nil else { return nil }
        var terms: [String] = [], arguments: StatementArguments = []
        if let deviceID {
            terms.append("deviceID = ? COLLATE NOCASE")
            arguments += [deviceID]
        }
        if let bundleID {
            terms.append("bundleID = ? COLLATE NOCASE")
            arguments += [bundleID]
        }
        let matching = try Double(Int.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(SUM(eventCount), 0) FROM session WHERE "
            + terms.joined(separator: " AND ")), arguments: arguments) ?? 0)
        let total = Double(try HistoryDatabase.totalEvents(db))
        return matching * matching < Self.walkCostPerRow * Double(max(1, limit)) * total
    }

    /// What reading one event's row while walking costs, in index entries read through `event_on_session`.
    static let walkCostPerRow = 5.0
}
