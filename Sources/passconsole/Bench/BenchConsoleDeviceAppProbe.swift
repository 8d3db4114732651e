import Foundation
import GRDB
import PassHistory

/// `bench-console --probe-device-app-columns`: what giving every event its device and app in indexed columns of its
/// own would buy and cost on SQLite, measured before any migration is written (issue #18 item 4: `app:` and `device:`
/// pages at 10M events missed p99 < 50 ms).
///
/// SQLite already ends every index in the row ID, so `event_on_session` is (sessionKey, id): a device's page merges
/// the ID lists of its sessions (sorted whole) and an app's walks the table. Only a column holding the device (the
/// app) on the event row itself gives an index in (device, id) order, read newest first and stopped at a page.
/// - Ingest: a fourth bare table (the history's indexes plus the two) takes turns with the other three.
/// - Pages: the two columns are added to the filled history's file, filled from the sessions and indexed, then the
///   device's and the app's newest 200 are read through them, as the page query would (`id` and stored JSON).
extension BenchConsoleCommand {
    static let deviceAppIndexes = """
        CREATE INDEX event_on_device ON event(deviceID COLLATE NOCASE);
        CREATE INDEX event_on_bundle ON event(bundleID COLLATE NOCASE);
        """

    static func probeIngestRow(ours: Double, bare: Double, probe: Double, events: Int, batch: Int) -> String {
        // What the two columns and indexes add per event, over SQLite alone, against what one event costs us now.
        let extra = (probe - bare) / Double(events) * 1e6, ourPerEvent = ours / Double(events) * 1e6
        print(String(format: "probe: SQLite alone with device and app columns, indexed: %.0f events/s vs %.0f without (+%.1f µs/event; ours %.1f µs/event)",
            Double(events) / probe, Double(events) / bare, extra, ourPerEvent))
        return String(format: "| probe: bare inserts with device and app columns, each indexed, batches of %d | %.0f events/s | %.0f events/s (the same without them) | %.2f | ingest cost +%.1f µs/event = %.0f%% of ours (%.1f µs/event); adopt only if ≤ ~10%% |",
            batch, Double(events) / probe, Double(events) / bare, bare / probe, extra, extra / ourPerEvent * 100, ourPerEvent)
    }

    func probeDeviceAppPages(path: String, lines: inout [String]) async throws {
        let queue = try DatabaseQueue(path: path)
        let started = ContinuousClock.now
        try await queue.write { db in
            try db.execute(sql: """
                ALTER TABLE event ADD COLUMN deviceID TEXT;
                ALTER TABLE event ADD COLUMN bundleID TEXT;
                UPDATE event SET (deviceID, bundleID) = (SELECT deviceID, bundleID FROM session WHERE key = event.sessionKey);
                \(Self.deviceAppIndexes)
                ANALYZE;
                """)
        }
        print(String(format: "probe: device and app columns added, filled and indexed in %.1f s", Self.milliseconds(ContinuousClock.now - started) / 1000))
        let total = try await queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM event") ?? 0 }
        for (name, column, value) in [("app:com.example.app7.ios", "bundleID", "com.example.app7.ios"), ("device:device-42", "deviceID", "device-42")] {
            var samples: [Double] = []
            for _ in 0..<queryRuns {
                samples.append(try await Self.time {
                    _ = try await queue.read { db in
                        try Row.fetchAll(db.cachedStatement(sql: "SELECT id, payload FROM event WHERE \(column) = ? COLLATE NOCASE ORDER BY id DESC LIMIT 200"),
                            arguments: [value])
                    }
                } * 1000)
            }
            let (p50, p99) = (Self.percentile(samples, 0.5), Self.percentile(samples, 0.99))
            print(String(format: "probe page (200 events) %@ through its own column: p50 %.2f ms, p99 %.2f ms", name, p50, p99))
            lines.append(String(format: "| probe: page of 200 at %dk events: %@ through an indexed column on the event | p50 %.2f ms, p99 %.2f ms | — | — | < %.0f ms: %@ |",
                total / 1000, name, p50, p99, Self.queryTargetMs, p99 < Self.queryTargetMs ? "met" : "NOT met"))
        }
    }
}
