import PassEvents
import Foundation
import PassHistory
import PostgresNIO

extension PostgresHistory {
    /// Stores `events` in one transaction and updates their sessions (created on first sight; `last_seen`,
    /// `event_count`, the Programmer, MVPD, user ID, outcome and search entries kept current), by the SQLite history's
    /// rules (``HistoryDatabase/SessionWrite``). An event whose (session, sequence) is already stored is skipped, so
    /// sending a batch again changes nothing. The rows go in as multi-row `INSERT`s of up to ``insertChunk`` events.
    /// - Returns: how many events were new.
    @discardableResult
    public func append(_ events: [EntitlementEvent]) async throws -> Int {
        guard !events.isEmpty else { return 0 }
        let rows = events.map(EncodedEvent.init)
        let latest = HistoryDatabase.latestPerSession(events)
        return try await write { connection, counter in
            var sessions = try await Self.upsertSessions(connection, latest, logger: self.logger)
            let stored = try await Self.storedSequences(connection, sessions: sessions, rows: rows, logger: self.logger)
            var lastID = counter
            var admitted: [Admitted] = []
            admitted.reserveCapacity(rows.count)
            for row in rows {
                guard var session = sessions[row.event.sessionID] else { continue }
                let key = session.key
                let isNew = session.admit(row) { stored[key] ?? [] }
                sessions[row.event.sessionID] = session
                guard isNew else { continue }
                lastID += 1
                admitted.append(Admitted(row: row, id: lastID, key: session.key, deviceID: session.deviceID, bundleID: session.bundleID))
            }
            guard !admitted.isEmpty else { return 0 }
            for start in stride(from: 0, to: admitted.count, by: Self.insertChunk) {
                try await Self.insert(connection, admitted[start..<min(start + Self.insertChunk, admitted.count)],
                    deviceApp: self.eventsCarryDeviceApp, logger: self.logger)
            }
            try await connection.query("UPDATE event_counter SET last_id = \(lastID)", logger: self.logger)
            // Delivered to every listening console when the transaction commits (``observeNewestEventID()``).
            try await connection.query("SELECT pg_notify(\(Self.eventsChannel), \(String(lastID)))", logger: self.logger)
            for session in sessions.values where session.added > 0 {
                try await Self.store(connection, session, logger: self.logger)
            }
            return admitted.count
        }
    }

    /// Events per `INSERT` (12 values each, under PostgreSQL's 65,535 bound values per statement).
    static let insertChunk = 1000

    /// An event new to the history, with its ID and its session's key, device and app.
    struct Admitted {
        var row: EncodedEvent
        var id: Int64
        var key: Int64
        var deviceID: String
        var bundleID: String
    }

    /// Creates or updates the session row of each session of the batch (its time span widened, its Programmer
    /// updated); returns each one's state before the batch.
    static func upsertSessions(_ connection: PostgresConnection, _ latest: [(latest: EntitlementEvent, firstSeen: Date)], logger: Logger)
        async throws -> [UUID: HistoryDatabase.SessionWrite]
    {
        var sessions: [UUID: HistoryDatabase.SessionWrite] = [:]
        for (event, firstSeen) in latest {
            let rows = try await connection.query("""
                INSERT INTO session AS s (id, device_id, bundle_id, team_id, platform, requestor_id, first_seen, last_seen)
                VALUES (\(event.sessionID), \(event.deviceID), \(event.app.bundleID), \(event.app.teamID), \(event.clientKind.rawValue),
                    \(event.requestorID), \(firstSeen.timeIntervalSince1970), \(event.timestamp.timeIntervalSince1970))
                ON CONFLICT (id) DO UPDATE SET
                    requestor_id = COALESCE(EXCLUDED.requestor_id, s.requestor_id),
                    first_seen = LEAST(s.first_seen, EXCLUDED.first_seen),
                    last_seen = GREATEST(s.last_seen, EXCLUDED.last_seen)
                RETURNING key, last_sequence, outcome, waiting_since, device_id, bundle_id
                """, logger: logger)
            for try await row in rows {
                let (key, lastSequence, outcome, waiting, deviceID, bundleID) = try row.decode((Int64, Int, String, Double?, String, String).self)
                var write = HistoryDatabase.SessionWrite(key: key, deviceID: deviceID, bundleID: bundleID, lastSequence: lastSequence, outcome: SessionOutcome.Tracker(
                    settled: SessionOutcome(rawValue: outcome) ?? .started, waitingSince: waiting.map(Date.init(timeIntervalSince1970:))))
                // A new row (nothing stored yet): its own ID, device and app become searchable once.
                if lastSequence == -1 {
                    write.terms = Set(SessionTerm.ofSession(id: event.sessionID, deviceID: event.deviceID, bundleID: event.app.bundleID))
                }
                sessions[event.sessionID] = write
            }
        }
        return sessions
    }

    /// The stored sequences of each session the batch sends an event at or below its highest stored sequence (a
    /// batch sent again, or late): the only sessions whose events need the look.
    static func storedSequences(
        _ connection: PostgresConnection, sessions: [UUID: HistoryDatabase.SessionWrite], rows: [EncodedEvent], logger: Logger
    ) async throws -> [Int64: Set<Int>] {
        var keys: Set<Int64> = []
        for row in rows {
            if let session = sessions[row.event.sessionID], row.event.sequence <= session.lastSequence { keys.insert(session.key) }
        }
        guard !keys.isEmpty else { return [:] }
        var stored: [Int64: Set<Int>] = [:]
        let result = try await connection.query(
            "SELECT session_key, sequence FROM event WHERE session_key = ANY(\(Array(keys)))", logger: logger)
        for try await (key, sequence) in result.decode((Int64, Int).self) { stored[key, default: []].insert(sequence) }
        return stored
    }

    /// Inserts events with their IDs, as the SQLite history stores them (the view with its ID, the same bytes), each
    /// with its session's device and app (unless `deviceApp` is false: a history at a schema before v4, opened by a test).
    static func insert(_ connection: PostgresConnection, _ rows: ArraySlice<Admitted>, deviceApp: Bool, logger: Logger) async throws {
        var query = PostgresQueryBuilder()
        var values: [String] = []
        values.reserveCapacity(rows.count)
        for admitted in rows {
            let (row, id) = (admitted.row, admitted.id)
            var columns = [
                query.bind(id), query.bind(admitted.key), query.bind(row.event.sequence), query.bind(row.facts.timestamp),
                query.bind(row.facts.kind.rawValue), query.bind(row.facts.requestorID), query.bind(row.facts.mvpdID),
                query.bind(row.facts.httpStatus), query.bind(row.facts.summary),
                query.bind(row.view.json(id: id)),
            ]
            if deviceApp { columns += [query.bind(admitted.deviceID), query.bind(admitted.bundleID)] }
            values.append("(" + columns.joined(separator: ",") + ")")
        }
        query.sql = "INSERT INTO event (id, session_key, sequence, timestamp, kind, requestor_id, mvpd_id, http_status, summary, payload"
            + (deviceApp ? ", device_id, bundle_id" : "") + ") VALUES "
            + values.joined(separator: ",")
        try await connection.query(query.query, logger: logger)
    }

    /// Writes what the batch changed about a session: its count and highest sequence, outcome, latest MVPD, user ID
    /// and tracking hash, and its new search entries.
    static func store(_ connection: PostgresConnection, _ session: HistoryDatabase.SessionWrite, logger: Logger) async throws {
        var stored: String?
        if session.needsStoredUserID {
            for try await userID in try await connection.query("SELECT user_id FROM session WHERE key = \(session.key)", logger: logger)
                .decode(String?.self) { stored = userID }
        }
        let clears = session.clearsUserID(stored: stored)
        try await connection.query("""
            UPDATE session SET event_count = event_count + \(session.added), last_sequence = \(session.lastSequence),
                outcome = \(session.outcome.settled.rawValue), waiting_since = \(session.outcome.waitingSince?.timeIntervalSince1970),
                mvpd_id = COALESCE(\(session.latestMvpd), mvpd_id),
                user_id = CASE WHEN \(clears) THEN NULL ELSE COALESCE(\(session.latestUserID), user_id) END,
                tracking_hash = COALESCE(\(session.latestTrackingHash), tracking_hash)
            WHERE key = \(session.key)
            """, logger: logger)
        let entries = session.searchTerms.flatMap { term in term.searchable.map { (term, $0.term, $0.offset) } }
        guard !entries.isEmpty else { return }
        var query = PostgresQueryBuilder()
        let values = entries.map { term, text, offset in
            "(\(query.bind(text)), \(query.bind(term.field.rawValue)), \(query.bind(session.key)), \(query.bind(term.value)), \(query.bind(offset)))"
        }
        query.sql = "INSERT INTO session_term (term, field, session_key, value, \"offset\") VALUES " + values.joined(separator: ",")
            + " ON CONFLICT DO NOTHING"
        try await connection.query(query.query, logger: logger)
    }
}
