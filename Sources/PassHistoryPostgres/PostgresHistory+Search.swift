import PassEvents
import Foundation
import PassHistory
import PostgresNIO

extension PostgresHistory {
    /// Sessions a support person is looking for, the most recently active first, at most `limit`: the SQLite
    /// history's rule (``HistoryDatabase/sessions(matching:aliases:limit:)``). Every word must start (in any case) one
    /// of the session's values or an alias's shown value; words are read through `session_term`'s primary key (a
    /// range of `COLLATE "C"` text, byte order as SQLite's), never the events. An empty search lists the latest sessions.
    public func sessions(matching text: String, aliases: [SessionAlias] = [], limit: Int = 200) async throws -> [SessionMatch] {
        let words = SessionSearch.words(text)
        let limit = max(1, limit)
        return try await snapshot { connection in
            var query = PostgresQueryBuilder()
            guard !words.isEmpty else {
                query.sql = "SELECT \(Self.sessionColumns) FROM session ORDER BY last_seen DESC, id LIMIT \(query.bind(limit))"
                var sessions: [SessionMatch] = []
                for try await row in try await connection.query(query.query, logger: self.logger) {
                    sessions.append(SessionMatch(session: try Self.session(from: row), matches: []))
                }
                return sessions
            }
            var found: [Int64: [FieldMatch]]?
            for word in words {
                found = SessionSearch.narrow(found, by: try await Self.sessionsMatching(connection, word: word, aliases: aliases,
                    logger: self.logger))
                if found?.isEmpty == true { return [] }
            }
            guard let found, !found.isEmpty else { return [] }
            query.sql = """
                SELECT \(Self.sessionColumns), key FROM session WHERE key = ANY(\(query.bind(Array(found.keys))))
                ORDER BY last_seen DESC, id LIMIT \(query.bind(limit))
                """
            var sessions: [SessionMatch] = []
            for try await row in try await connection.query(query.query, logger: self.logger) {
                let key = try row.makeRandomAccess()["key"].decode(Int64.self)
                sessions.append(SessionMatch(session: try Self.session(from: row),
                    matches: (found[key] ?? []).sorted { $0.field < $1.field }))
            }
            return sessions
        }
    }

    /// How many search entries of `field` the index holds (tests: a deleted session's go with it).
    package func searchEntryCount(field: SessionField) async throws -> Int {
        try await client.query("SELECT count(*) FROM session_term WHERE field = \(field.rawValue)", logger: logger).collectColumn(Int.self).first ?? 0
    }

    /// For one folded word: each session it finds, with the most specific field it matched.
    static func sessionsMatching(_ connection: PostgresConnection, word: String, aliases: [SessionAlias], logger: Logger) async throws
        -> [Int64: FieldMatch]
    {
        var best: [Int64: FieldMatch] = [:]
        let rows = try await connection.query("""
            SELECT session_key, field, value, "offset" FROM session_term WHERE term >= \(word) AND term < \(SessionSearch.upperBound(word))
            """, logger: logger)
        for try await (key, fieldName, value, offset) in rows.decode((Int64, String, String, Int).self) {
            guard let field = SessionField(rawValue: fieldName) else { continue }
            SessionSearch.offer(FieldMatch(field: field, value: value, offset: offset, length: word.count), for: key, in: &best)
        }
        for alias in aliases where SessionSearch.fold(alias.shown).hasPrefix(word) {
            let keys = try await connection.query("""
                SELECT session_key FROM session_term WHERE term = \(SessionSearch.fold(alias.value)) AND field = \(alias.field.rawValue)
                """, logger: logger).collectColumn(Int64.self)
            for key in keys {
                SessionSearch.offer(FieldMatch(field: alias.shownField, value: alias.shown, offset: 0, length: word.count), for: key, in: &best)
            }
        }
        return best
    }
}

extension PostgresHistory {
    /// The values of `field` the search index holds for each of `sessions` (by session ID), sorted, each once (the
    /// visitor IDs the app set); sessions without one are left out. One query, the IDs bound as one array.
    public func values(of field: SessionField, sessions ids: [UUID]) async throws -> [UUID: [String]] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await client.query("""
            SELECT s.id, t.value FROM session_term t JOIN session s ON s.key = t.session_key
            WHERE t.field = \(field.rawValue) AND s.id = ANY(\(ids))
            """, logger: logger)
        var result: [UUID: Set<String>] = [:]
        for (id, value) in try rows.decode((UUID, String).self) { result[id, default: []].insert(value) }
        return result.mapValues { $0.sorted() }
    }
}
