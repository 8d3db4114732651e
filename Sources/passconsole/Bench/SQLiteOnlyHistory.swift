import Foundation
import GRDB
import PassHistory

/// The history's events with SQLite's own means instead of the block index (`PassHistory/BlockIndex`): plain
/// indexes, a partial index for HTTP statuses, and indexes on the session columns for device and app filters. Text
/// is a `LIKE` walk in ID order: an FTS5 trigram index (tried on 2026-11-26) answered "not authorized" in 103 ms p50
/// at 1M events (every match is read and sorted) and cut ingest to 13k events/s, so it is left out. `bench-console` answers the same pages both ways at 1M events and compares (issue
/// #16 item 5: the block index stays only if it beats these by a measured margin).
struct SQLiteOnlyHistory {
    /// Indexes over the bench's `event` and `session` tables: what SQLite alone would need to answer the console's
    /// filters.
    static let indexes = """
        CREATE INDEX event_on_kind ON event(kind, id);
        CREATE INDEX event_on_requestor ON event(requestorID COLLATE NOCASE, kind, id);
        CREATE INDEX event_on_mvpd ON event(mvpdID COLLATE NOCASE, id);
        CREATE INDEX event_on_status ON event(httpStatus, id) WHERE httpStatus IS NOT NULL;
        CREATE INDEX event_on_session ON event(sessionKey, id);
        """

    /// One of the bench's page queries, in SQL: the condition on `event` and its arguments.
    struct Query {
        var condition: String
        var arguments: StatementArguments = []
    }

    let pool: DatabasePool

    /// Copies the events and sessions of the history at `historyPath` into a new file at `path` and builds the
    /// indexes there (not timed: this is the state a SQLite-only history would be in).
    static func copy(from historyPath: String, to path: String) async throws -> SQLiteOnlyHistory {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try await pool.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS h", arguments: [historyPath])
            try db.inTransaction {
                try db.execute(sql: """
                    CREATE TABLE session (key INTEGER PRIMARY KEY, id TEXT NOT NULL, deviceID TEXT NOT NULL, bundleID TEXT NOT NULL);
                    INSERT INTO session SELECT key, id, deviceID, bundleID FROM h.session;
                    CREATE INDEX session_on_device ON session(deviceID COLLATE NOCASE);
                    CREATE INDEX session_on_bundle ON session(bundleID COLLATE NOCASE);
                    CREATE TABLE event (id INTEGER PRIMARY KEY, sessionKey INTEGER NOT NULL, sequence INTEGER NOT NULL,
                        timestamp REAL NOT NULL, kind TEXT NOT NULL, requestorID TEXT, mvpdID TEXT, httpStatus INTEGER,
                        summary TEXT NOT NULL, payload TEXT NOT NULL);
                    \(indexes)
                    INSERT INTO event SELECT id, sessionKey, sequence, timestamp, kind, requestorID, mvpdID, httpStatus, summary, payload
                        FROM h.event ORDER BY id;
                    """)
                return .commit
            }
            try db.execute(sql: "DETACH DATABASE h")
            try db.execute(sql: "ANALYZE")
        }
        return SQLiteOnlyHistory(pool: pool)
    }

    /// The bench's filters as SQL (the same names as its ``HistoryFilter`` list).
    static func query(_ name: String, sessionKey: Int64) -> Query? {
        switch name {
        case "newest page, no filter": Query(condition: "1")
        case "programmer:REF30 event:callback": Query(condition: "requestorID = 'REF30' COLLATE NOCASE AND kind = 'callback'")
        // `+`: a walk in ID order. The planner's own choice (the partial index, then a sort of every 4xx) took 17 ms p50.
        case "status:4xx": Query(condition: "+httpStatus BETWEEN 400 AND 499")
        case "text \"not authorized\"": Query(condition: "summary LIKE '%not authorized%'")
        case "one session": Query(condition: "sessionKey = ?", arguments: [sessionKey])
        case "app:com.example.app7.ios":
            Query(condition: "sessionKey IN (SELECT key FROM session WHERE bundleID = 'com.example.app7.ios' COLLATE NOCASE)")
        case "device:device-42": Query(condition: "sessionKey IN (SELECT key FROM session WHERE deviceID = 'device-42' COLLATE NOCASE)")
        default: nil
        }
    }

    /// The newest `limit` matching events with the columns ``HistoryDatabase/rawPage(matching:before:after:limit:)``
    /// reads (the HTTP fields by `json_extract`, as it does): their IDs.
    func page(_ query: Query, limit: Int) async throws -> [Int64] {
        let exchange = "$.kind.httpExchange.exchange"
        return try await pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, summary, kind, payload, httpStatus,
                    CASE WHEN kind = 'httpExchange' THEN json_extract(payload, '\(exchange).method') END,
                    CASE WHEN kind = 'httpExchange' THEN json_extract(payload, '\(exchange).url') END,
                    CASE WHEN kind = 'httpExchange' THEN json_extract(payload, '\(exchange).durationMs') END,
                    CASE WHEN kind = 'httpExchange' THEN json_extract(payload, '\(exchange).failure') END
                FROM event WHERE \(query.condition) ORDER BY id DESC LIMIT \(limit)
                """, arguments: query.arguments)
            return rows.map { $0[0] }
        }
    }

    /// The session key of the session with this ID.
    func sessionKey(_ id: UUID?) async throws -> Int64 {
        try await pool.read { db in try Int64.fetchOne(db, sql: "SELECT key FROM session WHERE id = ?", arguments: [id?.uuidString]) ?? 0 }
    }
}
