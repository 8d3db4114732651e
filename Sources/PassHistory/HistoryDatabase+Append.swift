import PassEvents
import Foundation
import GRDB

extension HistoryDatabase {
    /// Stores `events` in one transaction and updates their sessions (created on first sight; `lastSeen`,
    /// `eventCount` and the Programmer kept current). An event whose (session, sequence) is already stored is
    /// skipped, so sending a batch again changes nothing.
    /// - Returns: how many events were new.
    @discardableResult
    public func append(_ events: [EntitlementEvent]) async throws -> Int {
        guard !events.isEmpty else { return 0 }
        // The JSON and summaries are encoded on another thread while this one writes (see EncodingPipeline).
        let pipeline = EncodingPipeline(events)
        return try await writer.write { db in
            var sessions = try Self.upsertSessions(db, events)
            var lastID = try Int64.fetchOne(db, sql: "SELECT lastID FROM event_counter") ?? 0
            // Cached prepared statements bound through the C API: per-row GRDB bookkeeping cost more than SQLite.
            let insert = try DirectStatement.eventInsert(db, deviceApp: self.eventsCarryDeviceApp)
            var scratch: [UInt8] = []
            var added = 0
            for chunk in 0..<pipeline.count {
                for row in pipeline.chunk(chunk) {
                    // One lookup of the session per event: its position, then its value in place.
                    guard let session = sessions.index(forKey: row.event.sessionID), try sessions.values[session].admit(row, db)
                    else { continue }
                    lastID += 1
                    try insert.insert(row, id: lastID, session: sessions.values[session], scratch: &scratch)
                    added += 1
                }
            }
            guard added > 0 else { return 0 }
            try db.execute(sql: "UPDATE event_counter SET lastID = ?", arguments: [lastID])
            let update = try db.cachedStatement(sql: "UPDATE session SET eventCount = eventCount + ?, lastSequence = ? WHERE key = ?")
            for session in sessions.values where session.added > 0 {
                try update.execute(arguments: [session.added, session.lastSequence, session.key])
                try session.store(db)
            }
            // The rows went in through the C API: tell GRDB's observers (the live feed) once.
            try db.notifyChanges(in: Table("event"))
            return added
        }
    }

    /// Creates or updates the session row of each session in `events`; returns their keys and highest sequences.
    static func upsertSessions(_ db: Database, _ events: [EntitlementEvent]) throws -> [UUID: SessionWrite] {
        let upsert = try db.cachedStatement(sql: upsertSessionSQL)
        var sessions: [UUID: SessionWrite] = [:]
        for session in latestPerSession(events) {
            let arguments = sessionArguments(session.latest, firstSeen: session.firstSeen)
            guard let row = try Row.fetchOne(upsert, arguments: arguments) else { continue }
            let waiting: Double? = row[3]
            var write = SessionWrite(key: row[0], deviceID: row[4], bundleID: row[5], lastSequence: row[1], outcome: SessionOutcome.Tracker(
                settled: SessionOutcome(rawValue: row[2]) ?? .started, waitingSince: waiting.map(Date.init(timeIntervalSince1970:))))
            let event = session.latest
            // A new row (nothing stored yet): its own ID, device and app become searchable once.
            if write.lastSequence == -1 {
                write.terms = Set(SessionTerm.ofSession(id: event.sessionID, deviceID: event.deviceID, bundleID: event.app.bundleID))
            }
            sessions[event.sessionID] = write
        }
        return sessions
    }

    /// Every sequence number stored for a session (through `event_on_session`).
    static func storedSequences(_ db: Database, sessionKey: Int64) throws -> Set<Int> {
        try Int.fetchSet(db, sql: "SELECT sequence FROM event WHERE sessionKey = ?", arguments: [sessionKey])
    }

    /// For each session in `events`: its latest event (carrying the latest non-nil Programmer) and its earliest time.
    package static func latestPerSession(_ events: [EntitlementEvent]) -> [(latest: EntitlementEvent, firstSeen: Date)] {
        // Indexes, not copies: an event is a large value, and a batch has hundreds of them.
        var order: [UUID] = []
        var summary: [UUID: (latest: Int, requestor: Int?, firstSeen: Date)] = [:]
        for (index, event) in events.enumerated() {
            guard var current = summary[event.sessionID] else {
                order.append(event.sessionID)
                summary[event.sessionID] = (index, event.requestorID == nil ? nil : index, event.timestamp)
                continue
            }
            if event.requestorID != nil { current.requestor = index }
            if event.timestamp >= events[current.latest].timestamp { current.latest = index }
            current.firstSeen = min(current.firstSeen, event.timestamp)
            summary[event.sessionID] = current
        }
        return order.compactMap { id in
            summary[id].map { found in
                var latest = events[found.latest]
                latest.requestorID = found.requestor.flatMap { events[$0].requestorID }
                return (latest, found.firstSeen)
            }
        }
    }

    /// Creates the session row of an event, or widens its time span and updates its Programmer; returns its key, the
    /// highest sequence stored for it, its outcome, and the device and app it was first seen with.
    static let upsertSessionSQL = """
        INSERT INTO session (id, deviceID, bundleID, teamID, platform, requestorID, firstSeen, lastSeen, eventCount)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)
        ON CONFLICT(id) DO UPDATE SET
            requestorID = COALESCE(excluded.requestorID, session.requestorID),
            firstSeen = MIN(session.firstSeen, excluded.firstSeen),
            lastSeen = MAX(session.lastSeen, excluded.lastSeen)
        RETURNING key, lastSequence, outcome, waitingSince, deviceID, bundleID
        """

    static func sessionArguments(_ event: EntitlementEvent, firstSeen: Date) -> StatementArguments {
        [
            event.sessionID.uuidString, event.deviceID, event.app.bundleID, event.app.teamID, event.clientKind.rawValue,
            event.requestorID, firstSeen.timeIntervalSince1970, event.timestamp.timeIntervalSince1970,
        ]
    }
}
