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
        return migrator
    }
}
