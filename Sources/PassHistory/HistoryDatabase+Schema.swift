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
        return migrator
    }
}
