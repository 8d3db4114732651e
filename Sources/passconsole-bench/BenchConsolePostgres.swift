import AccessEnabler
import ArgumentParser
import Foundation
import Logging
import PassHistory
import PassHistoryPostgres
import PostgresNIO

/// `passconsole-bench bench-console --history postgres://…`: the same page queries and live feed on a PostgreSQL history,
/// and its ingest through ``PostgresHistory/append(_:)``.
///
/// Filling 10M events through `append` takes long on a shared machine, so `--append-events` events are written through
/// it and the rest of `--history-events` are copies of them made by the database itself (`INSERT … SELECT`): each copy
/// has new event IDs after the last, new sessions (new keys and UUIDs, the same apps, devices and event counts) and its
/// times moved after the last event, its search entries copied with them; the event indexes are dropped for the
/// copies and built again after (what a bulk load does), then the tables are analyzed. The copies' stored JSON still
/// names the original's ID and session (the pages return it unread): the rows, their sizes and the values every filter
/// reads are the generated ones.
extension BenchConsoleCommand {
    func runPostgres(_ location: PostgresLocation, root: URL, lines: inout [String]) async throws {
        let history = try await PostgresHistory(location: location)
        defer { Task { await history.close() } }
        guard try await history.eventCount == 0 else { throw ValidationError("--history must name an empty database (it is filled)") }

        // 1. Ingest through append, in batches, as the console's batcher writes.
        var workload = HistoryWorkload()
        let events = workload.next(ingestEvents)
        try await history.append(workload.next(2000))  // warm-up: connections, caches
        let cpu = Self.processCPUSeconds()
        let elapsed = try await Self.time {
            for start in stride(from: 0, to: events.count, by: batch) {
                try await history.append(Array(events[start..<min(start + batch, events.count)]))
            }
        }
        let rate = Double(events.count) / elapsed
        let cpuPerEvent = (Self.processCPUSeconds() - cpu) / Double(events.count) * 1e6
        print(String(format: "PostgreSQL ingest: %.0f events/s, %.1f µs CPU/event in this process (encoding included), batch %d", rate, cpuPerEvent, batch))
        lines.append("| PostgreSQL ingest through append, batches of \(batch) | \(Int(rate)) events/s, "
            + String(format: "%.1f", cpuPerEvent) + " µs CPU/event in the bench process (the server's not counted) | — | — | ≥ \(Int(Self.ingestTarget)) events/s: "
            + (rate >= Self.ingestTarget ? "met" : "NOT met") + " |")

        // 2. Fill: append up to --append-events (all by default), copies in the database for the rest.
        let appendUpTo = min(historyEvents, appendEvents ?? historyEvents)
        var remaining = appendUpTo - (try await history.eventCount)
        let fillStart = ContinuousClock.now
        while remaining > 0 {
            let chunk = workload.next(min(5000, remaining))
            try await history.append(chunk)
            remaining -= chunk.count
        }
        print(String(format: "appended up to %d events in %.0f s", appendUpTo, Self.milliseconds(ContinuousClock.now - fillStart) / 1000))
        let connection = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(host: location.host, port: location.port, username: location.username,
                password: location.password, database: location.database, tls: .disable), id: 1, logger: Self.postgresLogger)
        do {
            try await Self.copyEvents(connection, upTo: historyEvents)
            try await connection.query("ANALYZE", logger: Self.postgresLogger)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
        try await pagesAndLive(history, root: root, lines: &lines)
        print("\n" + lines.joined(separator: "\n"))
    }

    static var postgresLogger: Logger {
        var logger = Logger(label: "bench-console")
        logger.logLevel = .warning
        return logger
    }

    /// Copies the events (and their sessions) until the table holds `target` events (a last, partial copy included).
    static func copyEvents(_ connection: PostgresConnection, upTo target: Int) async throws {
        let logger = postgresLogger
        func value(_ sql: String) async throws -> Double {
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            for try await row in rows { return try row.decode(Double?.self) ?? 0 }
            return 0
        }
        let base = Int(try await value("SELECT max(id)::float8 FROM event"))
        guard base > 0, target > base else { return }
        let sessions = Int(try await value("SELECT max(key)::float8 FROM session"))
        let first = try await value("SELECT min(timestamp) FROM event")
        let span = try await value("SELECT max(timestamp) FROM event") - first + 1
        let started = ContinuousClock.now
        // Indexes are built once after the copies, as a bulk load does.
        var definitions: [(name: String, sql: String)] = []
        for try await (name, sql) in try await connection.query("""
            SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'event' AND indexname <> 'event_pkey'
            """, logger: logger).decode((String, String).self)
        {
            definitions.append((name, sql))
        }
        for index in definitions { try await connection.query(PostgresQuery(unsafeSQL: "DROP INDEX \(index.name)"), logger: logger) }
        var copy = 1
        while base * copy < target {
            let count = min(base, target - base * copy)
            let (idShift, keyShift, timeShift) = (base * copy, sessions * copy, span * Double(copy))
            let statements = [
                """
                INSERT INTO session (key, id, device_id, bundle_id, team_id, platform, requestor_id, first_seen, last_seen, event_count,
                    last_sequence, mvpd_id, user_id, tracking_hash, outcome, waiting_since) OVERRIDING SYSTEM VALUE
                SELECT key + \(keyShift), gen_random_uuid(), device_id, bundle_id, team_id, platform, requestor_id, first_seen + \(timeShift),
                    last_seen + \(timeShift), event_count, last_sequence, mvpd_id, user_id, tracking_hash, outcome, waiting_since
                FROM session WHERE key IN (SELECT DISTINCT session_key FROM event WHERE id <= \(count))
                """,
                """
                INSERT INTO session_term (term, field, session_key, value, "offset")
                SELECT term, field, session_key + \(keyShift), value, "offset" FROM session_term
                WHERE session_key IN (SELECT DISTINCT session_key FROM event WHERE id <= \(count))
                """,
                """
                INSERT INTO event (id, session_key, sequence, timestamp, kind, requestor_id, mvpd_id, http_status, summary, payload,
                    device_id, bundle_id)
                SELECT id + \(idShift), session_key + \(keyShift), sequence, timestamp + \(timeShift), kind, requestor_id, mvpd_id, http_status,
                    summary, payload, device_id, bundle_id FROM event WHERE id <= \(count)
                """,
            ]
            for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            print(String(format: "copy %d: %d events (%.0f s so far)", copy, count, milliseconds(ContinuousClock.now - started) / 1000))
            copy += 1
        }
        try await connection.query("UPDATE event_counter SET last_id = (SELECT max(id) FROM event)", logger: logger)
        try await connection.query("SELECT setval(pg_get_serial_sequence('session', 'key'), (SELECT max(key) FROM session))", logger: logger)
        try await connection.query("SET maintenance_work_mem = '1GB'", logger: logger)
        for index in definitions { try await connection.query(PostgresQuery(unsafeSQL: index.sql), logger: logger) }
        print(String(format: "copied up to %d events and rebuilt %d indexes in %.0f s", target, definitions.count,
            milliseconds(ContinuousClock.now - started) / 1000))
    }
}
