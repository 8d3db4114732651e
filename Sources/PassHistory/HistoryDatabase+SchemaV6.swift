import GRDB

extension HistoryDatabase {
    /// v6: filters are served by SQLite's own indexes; the block index of v4 (`event_facet`, `event_block`) is gone.
    ///
    /// Measured at 1M events (see `Sources/PassHistory/README.md`): these indexes answered six of the seven benchmark
    /// pages faster than the block index and ingest was faster with them. Every index but the status class and the
    /// error set ends in the row ID (SQLite appends it), so a filter on one value reads its events newest first and
    /// stops at a page:
    /// - `event_on_kind (kind)`, `event_on_requestor (requestorID NOCASE, kind)`, `event_on_mvpd (mvpdID NOCASE)`,
    ///   `event_on_session (sessionKey)` (also the duplicate check of the append and deleting a session),
    ///   `event_on_timestamp (timestamp)` (time windows and pruning by age);
    /// - HTTP statuses, partial (only exchanges have one): `event_on_status (httpStatus)` for a code,
    ///   `event_on_statusClass (httpStatus / 100)` for a class (`status:4xx` is `httpStatus / 100 = 4`), and
    ///   `event_on_errorStatus (id) WHERE httpStatus < 200 OR httpStatus >= 400` for `status:error`;
    /// - device and app filters name the sessions through `session(deviceID NOCASE)`, `session(bundleID NOCASE)`
    ///   (they match in any ASCII case, so the v3 indexes in binary order could not serve them).
    ///
    /// `session_mvpd` goes too: nothing read it since the session search (v5) holds MVPDs in `session_term`.
    static func migrateToSQLiteIndexes(_ db: Database) throws {
        try db.execute(sql: """
            DROP TABLE IF EXISTS event_facet;
            DROP TABLE IF EXISTS event_block;
            DROP TABLE IF EXISTS session_mvpd;
            DROP INDEX IF EXISTS session_on_deviceID;
            DROP INDEX IF EXISTS session_on_bundleID;
            \(eventIndexes)
            CREATE INDEX session_on_deviceID ON session(deviceID COLLATE NOCASE);
            CREATE INDEX session_on_bundleID ON session(bundleID COLLATE NOCASE);
            """)
    }

    /// The indexes of the `event` table since schema v6 (also what the benchmark's "SQLite alone" table carries).
    package static let eventIndexes = """
        CREATE INDEX event_on_kind ON event(kind);
        CREATE INDEX event_on_requestor ON event(requestorID COLLATE NOCASE, kind);
        CREATE INDEX event_on_mvpd ON event(mvpdID COLLATE NOCASE);
        CREATE INDEX event_on_session ON event(sessionKey);
        CREATE INDEX event_on_timestamp ON event(timestamp);
        CREATE INDEX event_on_status ON event(httpStatus) WHERE httpStatus IS NOT NULL;
        CREATE INDEX event_on_statusClass ON event(httpStatus / 100) WHERE httpStatus IS NOT NULL;
        CREATE INDEX event_on_errorStatus ON event(id) WHERE httpStatus < 200 OR httpStatus >= 400;
        """
}
