import AccessEnabler
import Foundation
import Synchronization
import GRDB

/// The event history in SQLite: owns the database connection, migrates the schema when it opens, and offers
/// intent-named methods whose writes are each one invariant-preserving transaction.
public final class HistoryDatabase: Sendable {
    /// The connection: a WAL `DatabasePool` for a file, a `DatabaseQueue` in memory.
    let writer: any DatabaseWriter

    /// Opens (creating if needed) the history file at `path` in WAL mode and migrates it to the current schema.
    public convenience init(path: String) throws {
        var configuration = Configuration()
        configuration.label = "PassHistory"
        // WAL with synchronous=NORMAL: a commit survives the process being killed (kill -9, a crash) and the file
        // never corrupts; only a power cut can lose the last commits. FULL would fsync every batch.
        // A checkpoint every 10,000 pages instead of 1,000 (each one syncs the file) and a 16 MB page cache per
        // connection, so index pages stay in memory: ingest measured ~27% faster; the WAL is trimmed back to 64 MB.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA cache_size = -16384")
            try db.execute(sql: "PRAGMA journal_size_limit = 67108864")
        }
        try self.init(writer: DatabasePool(path: path, configuration: configuration))
    }

    /// Uses `writer` and migrates it to the current schema.
    init(writer: any DatabaseWriter) throws {
        self.writer = writer
        try Self.migrator.migrate(writer)
        // Per database file (the checkpointer is the writer's): set once here rather than on every reader.
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 10000") }
    }

    /// The history file's path; `nil` in memory.
    public var path: String? { (writer as? DatabasePool)?.path }

    /// An empty history in memory (previews and tests that need no file).
    public static func inMemory() throws -> HistoryDatabase {
        try HistoryDatabase(writer: DatabaseQueue(configuration: Configuration()))
    }

    /// The names of the migrations applied to the file, oldest first.
    public func appliedMigrations() throws -> [String] {
        try writer.read { try Self.migrator.appliedMigrations($0) }
    }

    // MARK: - Writes

    /// Stores `events` in one transaction and updates their sessions (created on first sight; `lastSeen`,
    /// `eventCount` and the Programmer kept current). An event whose (session, sequence) is already stored is
    /// skipped, so sending a batch again changes nothing.
    /// - Returns: how many events were new.
    @discardableResult
    public func append(_ events: [EntitlementEvent]) throws -> Int {
        guard !events.isEmpty else { return 0 }
        // Encoded before the write transaction, so other writers need not wait for it, and on every core: the JSON and
        // the summary are a third of an event's cost.
        let rows = Self.encode(events)
        return try writer.write { db in
            // Cached prepared statements: a batch is hundreds of rows, and building a record's persistence container
            // per row cost more than SQLite's own work.
            let upsert = try db.cachedStatement(sql: Self.upsertSessionSQL)
            var keys: [UUID: Int64] = [:]
            for session in Self.latestPerSession(events) {
                let arguments = Self.sessionArguments(session.latest, firstSeen: session.firstSeen)
                keys[session.latest.sessionID] = try Int64.fetchOne(upsert, arguments: arguments)
            }
            let insert = try EventInsertStatement(db)
            var inserted: [Int64: Int] = [:]
            for (event, payload, summary) in rows {
                guard let key = keys[event.sessionID] else { continue }
                if try insert.insert(event, sessionKey: key, payload: payload, summary: summary) { inserted[key, default: 0] += 1 }
            }
            // The rows went in through the C API: tell GRDB's observers (the live feed) once.
            if !inserted.isEmpty { try db.notifyChanges(in: Table("event")) }
            let count = try db.cachedStatement(sql: "UPDATE session SET eventCount = eventCount + ? WHERE key = ?")
            for (key, added) in inserted { try count.execute(arguments: [added, key]) }
            return inserted.values.reduce(0, +)
        }
    }

    /// Each event with its stored JSON and summary, encoded in parallel chunks for a large batch.
    static func encode(_ events: [EntitlementEvent]) -> [(event: EntitlementEvent, payload: String, summary: String)] {
        let chunks = events.count >= 64 ? min(ProcessInfo.processInfo.activeProcessorCount, 8) : 1
        let size = (events.count + chunks - 1) / chunks
        let parts = Mutex([[(event: EntitlementEvent, payload: String, summary: String)]](repeating: [], count: chunks))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let slice = events[min(events.count, chunk * size)..<min(events.count, (chunk + 1) * size)]
            let encoded = slice.map { (event: $0, payload: EventCoding.payload(of: $0), summary: $0.summary) }
            parts.withLock { $0[chunk] = encoded }
        }
        return parts.withLock { $0.flatMap { $0 } }
    }

    /// Deletes a session and, through the foreign key, all its events.
    /// - Returns: whether the session existed.
    @discardableResult
    public func deleteSession(_ id: UUID) throws -> Bool {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [id.uuidString])
            return db.changesCount > 0
        }
    }

    // MARK: - Reads

    /// One page of the events matching `filter`, in the order they were stored, starting after `cursor` (a
    /// ``StoredEvent/id``; `nil` for the first page). At most `limit` events.
    public func page(matching filter: HistoryFilter = .all, after cursor: Int64? = nil, limit: Int = 100) throws -> HistoryPage {
        let limit = max(1, limit)
        let decoder = EventCoding.decoder
        let records = try writer.read { db in
            try filter.request(after: cursor, walkingRows: try filter.walksRows(db)).limit(limit + 1).fetchAll(db)
        }
        let events = try records.prefix(limit).map { try $0.stored(decoder: decoder) }
        return HistoryPage(events: events, nextCursor: records.count > limit ? events.last?.id : nil)
    }

    /// The newest events matching `filter` older than `cursor` (`nil`: the newest of all), newest first: what a
    /// live list shows on open and when scrolling back. Pass the last event's ``StoredEvent/id`` as the next `before`.
    public func latestPage(matching filter: HistoryFilter = .all, before cursor: Int64? = nil, limit: Int = 100) throws
        -> HistoryPage
    {
        let limit = max(1, limit)
        let decoder = EventCoding.decoder
        let records = try writer.read { db in
            var request = filter.request(after: nil, walkingRows: try filter.walksRows(db)).reversed()
            if let cursor { request = request.filter(EventRecord.Columns.id < cursor) }
            return try request.limit(limit + 1).fetchAll(db)
        }
        let events = try records.prefix(limit).map { try $0.stored(decoder: decoder) }
        return HistoryPage(events: events, nextCursor: records.count > limit ? events.last?.id : nil)
    }

    /// How many stored events match `filter`.
    public func count(matching filter: HistoryFilter) throws -> Int {
        try writer.read { db in try filter.request(after: nil).fetchCount(db) }
    }

    /// Every session, the most recently active first.
    public func sessions() throws -> [HistorySession] {
        try writer.read { db in try HistorySession.order(Column("lastSeen").desc, Column("id")).fetchAll(db) }
    }

    /// Sessions a support person is looking for: `text` found in the session's ID, device ID, app, team or
    /// Programmer, or naming an MVPD its events name, or in its events' summaries (user GUIDs in tracking data,
    /// error codes). The most recently active first, at most `limit`.
    public func sessions(matching text: String, limit: Int = 200) throws -> [HistorySession] {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return Array(try sessions().prefix(limit)) }
        let like = "%\(HistoryFilter.escapeLike(trimmed))%"
        return try writer.read { db in
            try HistorySession.fetchAll(db, sql: """
                SELECT * FROM session
                WHERE id LIKE ?1 ESCAPE '\\' OR deviceID LIKE ?1 ESCAPE '\\' OR bundleID LIKE ?1 ESCAPE '\\'
                   OR teamID LIKE ?1 ESCAPE '\\' OR requestorID LIKE ?1 ESCAPE '\\'
                   OR key IN (SELECT sessionKey FROM event WHERE mvpdID = ?2)
                   OR key IN (SELECT sessionKey FROM event WHERE summary LIKE ?1 ESCAPE '\\')
                ORDER BY lastSeen DESC, id LIMIT ?3
                """, arguments: [like, trimmed, limit])
        }
    }

    /// The session with this ID, if stored.
    public func session(_ id: UUID) throws -> HistorySession? {
        try writer.read { db in try HistorySession.filter(Column("id") == id.uuidString).fetchOne(db) }
    }

    /// How many events the history holds: the sum of the sessions' counts, kept current by every write, so it costs
    /// nothing at a million events (a `COUNT(*)` walks an index).
    public var eventCount: Int {
        get throws { try writer.read(Self.totalEvents) }
    }

    /// The sum of the sessions' event counts (equal to the number of stored events).
    static func totalEvents(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(eventCount), 0) FROM session") ?? 0
    }

    /// How many sessions the history holds.
    public var sessionCount: Int {
        get throws { try writer.read { db in try HistorySession.fetchCount(db) } }
    }

    /// The ID of the newest stored event (`nil` when empty): observe after it to get only what comes next.
    public func latestCursor() throws -> Int64? {
        try writer.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM event") }
    }

    // MARK: - Sessions

    /// For each session in `events`: its latest event (carrying the latest non-nil Programmer) and its earliest time.
    static func latestPerSession(_ events: [EntitlementEvent]) -> [(latest: EntitlementEvent, firstSeen: Date)] {
        var order: [UUID] = []
        var summary: [UUID: (latest: EntitlementEvent, firstSeen: Date)] = [:]
        for event in events {
            guard var current = summary[event.sessionID] else {
                order.append(event.sessionID)
                summary[event.sessionID] = (event, event.timestamp)
                continue
            }
            let requestor = event.requestorID ?? current.latest.requestorID
            if event.timestamp >= current.latest.timestamp { current.latest = event }
            current.latest.requestorID = requestor
            current.firstSeen = min(current.firstSeen, event.timestamp)
            summary[event.sessionID] = current
        }
        return order.compactMap { summary[$0] }
    }

    /// Creates the session row of an event, or widens its time span and updates its Programmer; returns its key.
    static let upsertSessionSQL = """
        INSERT INTO session (id, deviceID, bundleID, teamID, platform, requestorID, firstSeen, lastSeen, eventCount)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)
        ON CONFLICT(id) DO UPDATE SET
            requestorID = COALESCE(excluded.requestorID, session.requestorID),
            firstSeen = MIN(session.firstSeen, excluded.firstSeen),
            lastSeen = MAX(session.lastSeen, excluded.lastSeen)
        RETURNING key
        """

    static func sessionArguments(_ event: EntitlementEvent, firstSeen: Date) -> StatementArguments {
        [
            event.sessionID.uuidString, event.deviceID, event.app.bundleID, event.app.teamID, event.app.platform.rawValue,
            event.requestorID, firstSeen.timeIntervalSince1970, event.timestamp.timeIntervalSince1970,
        ]
    }
}
