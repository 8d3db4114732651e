import Foundation
import PassHistory
import PostgresNIO

extension PostgresHistory {
    /// One page of the sessions `text` finds (all when empty), sorted over every matching session in SQL, starting
    /// after `cursor`, at most `limit`: the SQLite history's rule (``HistoryDatabase/sessionPage(matching:aliases:sort:labels:now:after:limit:)``).
    /// Text sort values are folded by `lower()` on `COLLATE "C"` (ASCII letters only) and compared byte by byte, as
    /// SQLite's `lower()` and `BINARY` do.
    public func sessionPage(
        matching text: String, aliases: [SessionAlias] = [], sort: SessionSort = .default, labels: SessionLabels = SessionLabels(),
        now: Date, after cursor: SessionCursor? = nil, limit: Int = 200
    ) async throws -> SessionSortPage {
        let words = SessionSearch.words(text)
        let limit = max(1, limit)
        return try await snapshot { connection in
            var found: [Int64: [FieldMatch]]?
            for word in words {
                found = SessionSearch.narrow(found, by: try await Self.sessionsMatching(connection, word: word, aliases: aliases,
                    logger: self.logger))
                if found?.isEmpty == true { return SessionSortPage(sessions: [], nextCursor: nil, total: 0) }
            }
            var query = PostgresQueryBuilder()
            let bundleIDs = sort.key == .app
                ? try await connection.query("SELECT DISTINCT bundle_id FROM session", logger: self.logger).collectColumn(String.self) : []
            let sorted = Self.sortedSessionsSQL(&query, sort: sort, labels: labels, bundleIDs: bundleIDs, now: now)
            var conditions: [String] = []
            if let found { conditions.append("key = ANY(\(query.bind(Array(found.keys))))") }
            if let cursor, let value = cursor.sortValue {
                let bound = switch value {
                case .number(let number): query.bind(number)
                case .count(let count): query.bind(count)
                case .text(let text): query.bind(text)
                }
                conditions.append("(sort_value, key) \(sort.order == .asc ? ">" : "<") (\(bound), \(query.bind(cursor.key)))")
            }
            let direction = sort.order == .asc ? "ASC" : "DESC"
            query.sql = sorted + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
                + " ORDER BY sort_value \(direction), key \(direction) LIMIT \(query.bind(limit + 1))"
            var sessions: [SessionMatch] = []
            var next: SessionCursor?
            var more = false
            for try await row in try await connection.query(query.query, logger: self.logger) {
                let columns = row.makeRandomAccess()
                let key = try columns["key"].decode(Int64.self)
                if sessions.count == limit {
                    more = true
                    break
                }
                sessions.append(SessionMatch(session: try Self.session(from: row), matches: (found?[key] ?? []).sorted { $0.field < $1.field }))
                let value: SessionCursor.SortValue = switch sort.key {
                case .lastSeen: .number(try columns["sort_value"].decode(Double.self))
                case .events: .count(try columns["sort_value"].decode(Int64.self))
                default: .text(try columns["sort_value"].decode(String.self))
                }
                next = SessionCursor(sort: sort, sortValue: value, key: key)
            }
            let total = try await found.map(\.count).asyncOr {
                try await connection.query("SELECT count(*) FROM session", logger: self.logger).collectColumn(Int.self).first ?? 0
            }
            return SessionSortPage(sessions: sessions, nextCursor: more ? next : nil, total: total)
        }
    }

    /// `SELECT * FROM (every session with its sort_value and key)`, to which the caller adds its conditions and order.
    /// The value is never NULL: a missing name sorts as empty text (first A→Z, last Z→A).
    static func sortedSessionsSQL(_ query: inout PostgresQueryBuilder, sort: SessionSort, labels: SessionLabels, bundleIDs: [String], now: Date)
        -> String
    {
        var with = "", joins = ""
        /// A table of (value, label) pairs, or an empty one.
        func table(_ name: String, _ pairs: [(String, String)]) -> String {
            guard !pairs.isEmpty else { return "\(name)(value, label) AS (SELECT NULL::text, NULL::text WHERE false)" }
            return "\(name)(value, label) AS (VALUES " + pairs.map { "(\(query.bind($0.0))::text, \(query.bind($0.1))::text)" }
                .joined(separator: ", ") + ")"
        }
        let value: String
        switch sort.key {
        case .lastSeen: value = "s.last_seen"
        case .events: value = "s.event_count"
        case .programmer: value = "lower(COALESCE(s.requestor_id, ''))"
        case .mvpd: value = "lower(COALESCE(s.mvpd_id, ''))"
        case .app:
            with = "WITH " + table("app_label", bundleIDs.map { ($0, labels.app($0)) }) + " "
            joins = " LEFT JOIN app_label ON app_label.value = s.bundle_id"
            value = "lower(COALESCE(app_label.label COLLATE \"C\", s.bundle_id))"
        case .user:
            with = "WITH " + table("user_label", labels.users.map { ($0.key, $0.value) }) + " "
            joins = " LEFT JOIN user_label AS by_id ON by_id.value = s.user_id"
                + " LEFT JOIN user_label AS by_hash ON by_hash.value = lower(s.tracking_hash)"
            value = "lower(COALESCE(by_id.label COLLATE \"C\", s.user_id, by_hash.label COLLATE \"C\", ''))"
        case .outcome:
            // SessionOutcome.Tracker.outcome(at:) in SQL: a waiting session is in progress, stuck after stuckAfter; a value
            // from no known case reads as started, as HistorySession does.
            let settled = SessionOutcome.allCases.map { "WHEN \(query.bind($0.rawValue)) THEN \(query.bind($0.label))" }.joined(separator: " ")
            value = "COALESCE(CASE WHEN s.waiting_since IS NULL THEN (CASE s.outcome \(settled) ELSE NULL END)"
                + " WHEN \(query.bind(now.timeIntervalSince1970)) - s.waiting_since > \(query.bind(SessionOutcome.Tracker.stuckAfter))"
                + " THEN \(query.bind(SessionOutcome.stuck.label)) ELSE \(query.bind(SessionOutcome.inProgress.label)) END,"
                + " \(query.bind(SessionOutcome.started.label))) COLLATE \"C\""
        }
        return with + "SELECT * FROM (SELECT \(sessionColumns), s.key, \(value) AS sort_value FROM session s\(joins)) sorted"
    }
}

extension Optional {
    /// The value, or what `fallback` works out.
    fileprivate func asyncOr(_ fallback: () async throws -> Wrapped) async rethrows -> Wrapped {
        if let self { return self }
        return try await fallback()
    }
}
