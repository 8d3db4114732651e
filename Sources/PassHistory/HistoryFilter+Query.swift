import GRDB

extension HistoryFilter {
    /// The IDs of the events matching this filter with `lower < id < upper`, in ID order (descending when
    /// `newestFirst`), at most `limit`: one SQL query, which SQLite answers through the index of the filter's most
    /// selective criterion (schema v6) and stops at `limit`.
    func ids(_ db: Database, above lower: Int64, below upper: Int64, newestFirst: Bool, limit: Int) throws -> [Int64] {
        guard limit > 0, upper > lower, upper - lower > 1 else { return [] }
        let (sql, arguments) = query(select: "id", above: lower, below: upper, newestFirst: newestFirst, limit: limit)
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
    func query(select columns: String, above lower: Int64, below upper: Int64, newestFirst: Bool, limit: Int)
        -> (sql: String, arguments: StatementArguments)
    {
        var (condition, arguments) = sqlCondition
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
        // Without a filter a page is the last (or first) rows in ID order: the table's own order, which SQLite's
        // statistics on a small history sometimes trade for scanning an index and sorting every row (measured: a
        // quarter of a page's CPU at 48 events).
        return ("SELECT \(columns) FROM event\(isEmpty ? " NOT INDEXED" : "") WHERE \(condition) \(order) LIMIT ?", arguments)
    }
}
