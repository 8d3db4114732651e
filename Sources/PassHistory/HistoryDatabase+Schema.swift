import PassEvents
import GRDB

extension HistoryDatabase {
    /// The schema, as named migrations. A shipped migration is never edited: changes are new migrations appended
    /// at the end (`"v2-…"`), so any file written by an older build opens and upgrades in place.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // One row per app instance's run (one `AccessEnabler`), kept up to date by `append(_:)`.
            try db.create(table: "session") { t in
                t.primaryKey("id", .text)
                t.column("deviceID", .text).notNull()
                t.column("bundleID", .text).notNull()
                t.column("teamID", .text).notNull()
                t.column("platform", .text).notNull()
                t.column("requestorID", .text)
                t.column("firstSeen", .double).notNull()
                t.column("lastSeen", .double).notNull()
                t.column("eventCount", .integer).notNull().defaults(to: 0).check { $0 >= 0 }
            }
            try db.create(index: "session_on_lastSeen", on: "session", columns: ["lastSeen"])

            // One row per `EntitlementEvent`; `id` is SQLite's rowid and the paging cursor (never reused).
            try db.create(table: "event") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("sessionID", .text).notNull().references("session", onDelete: .cascade)
                t.column("sequence", .integer).notNull()
                t.column("timestamp", .double).notNull()
                t.column("kind", .text).notNull()
                    .check { EventKind.allCases.map(\.rawValue).contains($0) }
                t.column("requestorID", .text)
                t.column("mvpdID", .text)
                t.column("deviceID", .text).notNull()
                t.column("summary", .text).notNull()
                t.column("payload", .text).notNull()
                t.uniqueKey(["sessionID", "sequence"])
            }
            // The unique key already indexes (sessionID, sequence); one index per other filter.
            try db.create(index: "event_on_timestamp", on: "event", columns: ["timestamp"])
            try db.create(index: "event_on_kind", on: "event", columns: ["kind"])
            try db.create(index: "event_on_requestorID", on: "event", columns: ["requestorID"])
            try db.create(index: "event_on_mvpdID", on: "event", columns: ["mvpdID"])
            try db.create(index: "event_on_deviceID", on: "event", columns: ["deviceID"])
        }
        migrator.registerMigration("v2-console") { db in
            // The app and the HTTP status as columns, so the console's `app:` and `status:` filters use indexes.
            try db.alter(table: "event") { t in
                t.add(column: "bundleID", .text)
                t.add(column: "httpStatus", .integer)
            }
            try db.execute(sql: "UPDATE event SET bundleID = (SELECT bundleID FROM session WHERE session.id = event.sessionID)")
            try db.create(index: "event_on_bundleID", on: "event", columns: ["bundleID"])
            try db.create(index: "event_on_httpStatus", on: "event", columns: ["httpStatus"])
            // What people did in the console (clear, import, export, reveal, undo): shown in the UI, never edited.
            try db.create(table: "audit") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("at", .double).notNull()
                t.column("action", .text).notNull()
                t.column("detail", .text).notNull()
                t.column("remote", .text).notNull().defaults(to: "")
            }
            // Storage as it was before a console change, for one-click undo (and after a restart too).
            try db.create(table: "backup") { t in
                t.primaryKey("id", .text)
                t.column("at", .double).notNull()
                t.column("reason", .text).notNull()
                t.column("documents", .text).notNull()
            }
        }
        migrator.registerMigration("v3-compact-keys", migrate: migrateToCompactKeys)
        migrator.registerMigration("v4-block-index", migrate: migrateToBlockIndex)
        migrator.registerMigration("v5-session-search", migrate: migrateToSessionSearch)
        migrator.registerMigration("v6-sqlite-indexes", migrate: migrateToSQLiteIndexes)
        migrator.registerMigration("v7-stored-views", migrate: migrateToStoredViews)
        migrator.registerMigration("v8-operators", migrate: migrateToOperators)
        migrator.registerMigration("v9-event-device-app", migrate: migrateToEventDeviceApp)
        return migrator
    }
}

extension HistoryDatabase {
    /// v3: events name their session by a small integer (`session.key`, given in arrival order) instead of its UUID
    /// text, and the device and app live on the session only. Every index of `event` then grows at its end (keys,
    /// times and row IDs only increase; the other columns have a handful of values), where v2's random UUIDs and
    /// device IDs spread each insert over the whole index: ingest measured ~3× faster at a million events. Filters on
    /// device and app go through the session table (see ``HistoryFilter``).
    static func migrateToCompactKeys(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE event RENAME TO event_v2")
        try db.execute(sql: "ALTER TABLE session RENAME TO session_v2")
        for index in ["session_on_lastSeen", "event_on_timestamp", "event_on_kind", "event_on_requestorID", "event_on_mvpdID",
            "event_on_deviceID", "event_on_bundleID", "event_on_httpStatus"]
        {
            try db.execute(sql: "DROP INDEX IF EXISTS \(index)")
        }
        try db.create(table: "session") { t in
            t.primaryKey("key", .integer)
            t.column("id", .text).notNull().unique()
            t.column("deviceID", .text).notNull()
            t.column("bundleID", .text).notNull()
            t.column("teamID", .text).notNull()
            t.column("platform", .text).notNull()
            t.column("requestorID", .text)
            t.column("firstSeen", .double).notNull()
            t.column("lastSeen", .double).notNull()
            t.column("eventCount", .integer).notNull().defaults(to: 0).check { $0 >= 0 }
        }
        try db.create(table: "event") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("sessionKey", .integer).notNull().references("session", column: "key", onDelete: .cascade)
            t.column("sequence", .integer).notNull()
            t.column("timestamp", .double).notNull()
            t.column("kind", .text).notNull().check { EventKind.allCases.map(\.rawValue).contains($0) }
            t.column("requestorID", .text)
            t.column("mvpdID", .text)
            t.column("httpStatus", .integer)
            t.column("summary", .text).notNull()
            t.column("payload", .text).notNull()
            t.uniqueKey(["sessionKey", "sequence"])
        }
        try db.execute(sql: """
            INSERT INTO session (id, deviceID, bundleID, teamID, platform, requestorID, firstSeen, lastSeen, eventCount)
            SELECT id, deviceID, bundleID, teamID, platform, requestorID, firstSeen, lastSeen, eventCount
            FROM session_v2 ORDER BY firstSeen, id;
            INSERT INTO event (id, sessionKey, sequence, timestamp, kind, requestorID, mvpdID, httpStatus, summary, payload)
            SELECT e.id, s.key, e.sequence, e.timestamp, e.kind, e.requestorID, e.mvpdID, e.httpStatus, e.summary, e.payload
            FROM event_v2 e JOIN session s ON s.id = e.sessionID ORDER BY e.id;
            -- Row IDs are cursors and never reused: carry the counter over even when the newest rows were deleted.
            INSERT INTO sqlite_sequence (name, seq) SELECT 'event', 0
                WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'event');
            UPDATE sqlite_sequence
                SET seq = MAX(seq, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'event_v2'), 0))
                WHERE name = 'event';
            DROP TABLE event_v2;
            DROP TABLE session_v2;
            """)
        // The unique key indexes (sessionKey, sequence); one index per other filter. Device and app: on the session.
        try db.create(index: "session_on_lastSeen", on: "session", columns: ["lastSeen"])
        try db.create(index: "session_on_deviceID", on: "session", columns: ["deviceID"])
        try db.create(index: "session_on_bundleID", on: "session", columns: ["bundleID"])
        try db.create(index: "event_on_timestamp", on: "event", columns: ["timestamp"])
        try db.create(index: "event_on_kind", on: "event", columns: ["kind"])
        try db.create(index: "event_on_requestorID", on: "event", columns: ["requestorID"])
        try db.create(index: "event_on_mvpdID", on: "event", columns: ["mvpdID"])
        try db.create(index: "event_on_httpStatus", on: "event", columns: ["httpStatus"])
    }
}
