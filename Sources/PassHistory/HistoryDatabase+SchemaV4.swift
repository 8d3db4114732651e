import PassEvents
import GRDB

extension HistoryDatabase {
    /// v4: filters are served by a block index instead of per-event B-tree indexes, so an event costs SQLite one row.
    ///
    /// - `event` loses its five column indexes, its unique (session, sequence) key and its foreign key: each cost an
    ///   index entry per event, and together they halved ingest (measured: SQLite alone 154k rows/s without, 49k
    ///   with). Event IDs are handed out by the history (`event_counter`), still never reused.
    /// - `event_facet` (a WITHOUT ROWID table keyed by facet, value and block) holds, per block of 256 event IDs and
    ///   each kind, Programmer, MVPD, HTTP status, session, device and app seen in it, the bitmap of the block's
    ///   events with that value (``BlockBits``); `event_block` the block's time span. A filter reads the bitmaps of its
    ///   values and ANDs them: the exact IDs of the matching events, block by block, newest first.
    /// - Duplicates (a batch sent again) are recognised through `session.lastSequence`, the highest sequence stored
    ///   per session, with a look at the stored sequences only for events at or below it.
    /// - `session_mvpd` lists the MVPDs each session's events named (for the session search).
    static func migrateToBlockIndex(_ db: Database) throws {
        let lastID = try Int64.fetchOne(db, sql: """
            SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'event'), 0), COALESCE((SELECT MAX(id) FROM event), 0))
            """) ?? 0
        try db.alter(table: "session") { t in t.add(column: "lastSequence", .integer).notNull().defaults(to: -1) }
        try db.execute(sql: """
            UPDATE session SET lastSequence = COALESCE((SELECT MAX(sequence) FROM event WHERE sessionKey = session.key), -1);
            CREATE TABLE session_mvpd (
                mvpdID TEXT NOT NULL,
                sessionKey INTEGER NOT NULL REFERENCES session(key) ON DELETE CASCADE,
                PRIMARY KEY (mvpdID, sessionKey)
            ) WITHOUT ROWID;
            CREATE INDEX session_mvpd_on_sessionKey ON session_mvpd(sessionKey);
            INSERT OR IGNORE INTO session_mvpd (mvpdID, sessionKey) SELECT mvpdID, sessionKey FROM event WHERE mvpdID IS NOT NULL;
            ALTER TABLE event RENAME TO event_v3;
            """)
        for index in ["event_on_timestamp", "event_on_kind", "event_on_requestorID", "event_on_mvpdID", "event_on_httpStatus"] {
            try db.execute(sql: "DROP INDEX IF EXISTS \(index)")
        }
        let kinds = EventKind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        try db.execute(sql: """
            CREATE TABLE event (
                id INTEGER PRIMARY KEY,
                sessionKey INTEGER NOT NULL,
                sequence INTEGER NOT NULL,
                timestamp REAL NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN (\(kinds))),
                requestorID TEXT,
                mvpdID TEXT,
                httpStatus INTEGER,
                summary TEXT NOT NULL,
                payload TEXT NOT NULL
            );
            INSERT INTO event SELECT id, sessionKey, sequence, timestamp, kind, requestorID, mvpdID, httpStatus, summary, payload
                FROM event_v3 ORDER BY id;
            DROP TABLE event_v3;
            CREATE TABLE event_counter (lastID INTEGER NOT NULL);
            CREATE TABLE event_facet (
                facet INTEGER NOT NULL,
                value NOT NULL,
                block INTEGER NOT NULL,
                b0 INTEGER NOT NULL, b1 INTEGER NOT NULL, b2 INTEGER NOT NULL, b3 INTEGER NOT NULL,
                PRIMARY KEY (facet, value, block)
            ) WITHOUT ROWID;
            CREATE INDEX event_facet_on_block ON event_facet(block);
            CREATE TABLE event_block (block INTEGER PRIMARY KEY, minTime REAL NOT NULL, maxTime REAL NOT NULL);
            """)
        try db.execute(sql: "INSERT INTO event_counter (lastID) VALUES (?)", arguments: [lastID])
        // v4 filled `event_facet` and `event_block` from the stored events here; v6 drops both tables (the block
        // index lost to SQLite's own indexes), so a file upgraded through v4 now leaves them empty.
    }
}
