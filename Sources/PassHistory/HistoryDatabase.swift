import PassEvents
import Foundation
import Locking
import GRDB

/// The event history in SQLite: owns the database connection, migrates the schema when it opens, and offers
/// intent-named methods whose writes are each one invariant-preserving transaction.
///
/// Every read and write is `async` and goes through GRDB's async access: the caller's thread is never blocked
/// waiting for a connection. A synchronous read on a Swift concurrency thread waits in GRDB's reader pool, and an
/// async read hands its reader back only when its task resumes on such a thread: with every thread of the pool
/// (one per core) waiting, nothing could resume, and the whole process stopped answering under a team's load.
public final class HistoryDatabase: Sendable {
    /// The connection: a WAL `DatabasePool` for a file, a `DatabaseQueue` in memory.
    package let writer: any DatabaseWriter
    /// A connection of its own for the few synchronous reads a console makes while it is made or started
    /// (``operatorsNow()``), opened at the first such read: it never waits for the pool's readers, so it cannot join
    /// the deadlock described above.
    let headReaderConnection = Mutex<DatabaseQueue?>(nil)
    /// The connections of the reads answered through a completion callback (a server's pages, see
    /// ``CallbackReaders``); `nil` in memory, where the history's own queue serves them.
    let callbackReaders: CallbackReaders?
    /// Whether events are stored with their session's device and app (schema v9); false only for a file a test opened
    /// at an older schema, which is written as the build of that schema did.
    let eventsCarryDeviceApp: Bool

    /// Opens (creating if needed) the history file at `path` in WAL mode and migrates it to the current schema.
    /// The file and its `-wal`/`-shm` are readable by their owner only (0600), whatever the umask: they hold storage
    /// backups with live tokens. ``openChecked(path:recover:now:)`` also checks the file for damage.
    public convenience init(path: String) throws {
        HistoryFiles.secure(path)
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

    /// Uses `writer` and migrates it to the current schema (tests: only up to the migration named `upTo`, to write a
    /// file as an older build did).
    init(writer: any DatabaseWriter, upTo lastMigration: String? = nil) throws {
        self.writer = writer
        callbackReaders = (writer as? DatabasePool).map { CallbackReaders(path: $0.path, count: 4) }
        let names = Self.migrator.migrations
        eventsCarryDeviceApp = lastMigration.flatMap(names.firstIndex(of:)).map { $0 >= names.firstIndex(of: "v9-event-device-app")! } ?? true
        if let lastMigration { try Self.migrator.migrate(writer, upTo: lastMigration) } else { try Self.migrator.migrate(writer) }
        // Per database file (the checkpointer is the writer's): set once here rather than on every reader.
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 10000") }
    }

    /// The connection for synchronous reads: ``headReaderConnection`` for a file, the queue itself in memory.
    func headReader() throws -> any DatabaseReader {
        guard let pool = writer as? DatabasePool else { return writer }
        return try headReaderConnection.withLock { connection in
            if let connection { return connection }
            var configuration = Configuration()
            configuration.readonly = true
            configuration.label = "PassHistory.head"
            let opened = try DatabaseQueue(path: pool.path, configuration: configuration)
            connection = opened
            return opened
        }
    }

    /// The history file's path; `nil` in memory.
    public var path: String? { (writer as? DatabasePool)?.path }

    /// An empty history in memory (previews and tests that need no file).
    public static func inMemory() throws -> HistoryDatabase {
        try HistoryDatabase(writer: DatabaseQueue(configuration: Configuration()))
    }

    /// The names of the migrations applied to the file, oldest first.
    public func appliedMigrations() async throws -> [String] {
        try await writer.read { try Self.migrator.appliedMigrations($0) }
    }

    // MARK: - Writes

    /// Deletes a session and all its events.
    /// - Returns: whether the session existed.
    @discardableResult
    public func deleteSession(_ id: UUID) async throws -> Bool {
        try await writer.write { db in
            guard let key = try Int64.fetchOne(db, sql: "SELECT key FROM session WHERE id = ?", arguments: [id.uuidString]) else {
                return false
            }
            _ = try Self.deleteEvents(db, where: "sessionKey = ?", arguments: [key])
            try db.execute(sql: "DELETE FROM session WHERE key = ?", arguments: [key])
            return true
        }
    }

    // MARK: - Reads

    /// One page of the events matching `filter`, in the order they were stored, starting after `cursor` (a
    /// ``StoredEvent/id``; `nil` for the first page). At most `limit` events.
    public func page(matching filter: HistoryFilter = .all, after cursor: Int64? = nil, limit: Int = 100) async throws -> HistoryPage {
        try await decodedPage(matching: filter, above: cursor ?? 0, below: .max, newestFirst: false, limit: limit)
    }

    /// The newest events matching `filter` older than `cursor` (`nil`: the newest of all), newest first: what a
    /// live list shows on open and when scrolling back. Pass the last event's ``StoredEvent/id`` as the next `before`.
    public func latestPage(matching filter: HistoryFilter = .all, before cursor: Int64? = nil, limit: Int = 100) async throws
        -> HistoryPage
    {
        try await decodedPage(matching: filter, above: 0, below: cursor ?? .max, newestFirst: true, limit: limit)
    }

    private func decodedPage(matching filter: HistoryFilter, above lower: Int64, below upper: Int64, newestFirst: Bool, limit: Int)
        async throws -> HistoryPage
    {
        let limit = max(1, limit)
        let records = try await writer.read { db in
            let ids = try filter.ids(db, above: lower, below: upper, newestFirst: newestFirst, limit: limit + 1)
            return try Self.records(db, ids: ids, newestFirst: newestFirst)
        }
        let decoder = EventCoding.viewDecoder
        let events = try records.prefix(limit).map { try $0.stored(decoder: decoder) }
        return HistoryPage(events: events, nextCursor: records.count > limit ? events.last?.id : nil)
    }

    /// The rows of `ids`, in ID order.
    static func records(_ db: Database, ids: [Int64], newestFirst: Bool) throws -> [EventRecord] {
        guard !ids.isEmpty else { return [] }
        let request = EventRecord.filter(sql: "id IN (\(ids.map(String.init).joined(separator: ",")))").order(EventRecord.Columns.id)
        return try (newestFirst ? request.reversed() : request).fetchAll(db)
    }

    /// How many stored events match `filter`.
    public func count(matching filter: HistoryFilter) async throws -> Int {
        try await writer.read { db in try filter.count(db, limit: .max) }
    }

    /// Every session, the most recently active first.
    public func sessions() async throws -> [HistorySession] {
        try await writer.read { db in try HistorySession.order(Column("lastSeen").desc, Column("id")).fetchAll(db) }
    }

    /// The bundle IDs the sessions belong to (the `session_on_bundleID` index is walked, not the table).
    public func appBundleIDs(limit: Int) async throws -> [String] {
        try await writer.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT bundleID COLLATE NOCASE FROM session WHERE bundleID IS NOT NULL LIMIT ?",
                arguments: [max(0, limit)])
        }
    }

    /// The session with this ID, if stored.
    public func session(_ id: UUID) async throws -> HistorySession? {
        try await writer.read { db in try HistorySession.filter(Column("id") == id.uuidString).fetchOne(db) }
    }

    /// How many events the history holds: the sum of the sessions' counts, kept current by every write, so it costs
    /// nothing at a million events (a `COUNT(*)` walks an index).
    public var eventCount: Int {
        get async throws { try await writer.read(Self.totalEvents) }
    }

    /// The sum of the sessions' event counts (equal to the number of stored events).
    static func totalEvents(_ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(SUM(eventCount), 0) FROM session")) ?? 0
    }

    /// How many sessions the history holds.
    public var sessionCount: Int {
        get async throws { try await writer.read { db in try HistorySession.fetchCount(db) } }
    }

    /// The ID of the newest stored event (`nil` when empty): observe after it to get only what comes next.
    public func latestCursor() async throws -> Int64? {
        try await writer.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM event") }
    }
}
