import GRDB

extension HistoryDatabase {
    /// v9: each event carries its session's device and app again (v3 moved them to the session), indexed, so a
    /// `device:` or `app:` page reads the newest matches of one index in ID order and stops at a page. Through the
    /// session (v3–v8) a page either sorted the IDs of every event of the device's sessions or walked the events
    /// newest first: at 10M events, p50 / p99 46 / 50 ms (`app:com.example.app7.ios`, 250,000 matches) and 32 / 39 ms
    /// (`device:device-42`, 20,000); through the columns 0.20 / 0.75 ms and 0.19 / 0.49 ms. The cost, measured before
    /// writing this (a probe in `bench-console`, bare inserts with and without the two indexes): +5.5 µs of SQLite per
    /// event stored (52k vs 73k events/s); figures in `docs/benchmarks.md`.
    ///
    /// A session's device and app never change after its first event, so the copies cannot go stale. Filled from the
    /// sessions here: one pass over a history written by an older build (10M events: 147 s with the two indexes).
    static func migrateToEventDeviceApp(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE event ADD COLUMN deviceID TEXT;
            ALTER TABLE event ADD COLUMN bundleID TEXT;
            UPDATE event SET (deviceID, bundleID) = (SELECT deviceID, bundleID FROM session WHERE key = event.sessionKey);
            \(eventDeviceAppIndexes)
            """)
    }

    /// The indexes of v9 (SQLite ends each in the row ID: one device's or app's events in ID order).
    package static let eventDeviceAppIndexes = """
        CREATE INDEX event_on_device ON event(deviceID COLLATE NOCASE);
        CREATE INDEX event_on_bundle ON event(bundleID COLLATE NOCASE);
        """
}
