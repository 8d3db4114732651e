import PassEvents
import Foundation

/// The event history as its users see it, whatever holds it: ``HistoryDatabase`` (SQLite, one file, the embedded
/// default) or `PostgresHistory` (module `PassHistoryPostgres`, a team's shared PostgreSQL). Both give the same answers
/// to the same calls; the history tests run against both (`Tests/PassHistoryTests`, ``HistoryBackend`` there).
///
/// What is here: storing events, pages (by cursor, newest first, raw, with counts, by time window), counts, the rows
/// the live feed reads, the cursor of the newest event and its observation, sessions and their search, deleting a
/// session, retention, the audit log, storage backups and named operators. The console's other uses of the history
/// (`operatorsNow`, a synchronous read; health: `quickCheck`, `optimize`, the file's `path`) are SQLite's own: a
/// console reaches them through `Console.sqlite`, `nil` on PostgreSQL.
///
/// Event IDs are the cursors: each stored event gets one above every ID handed out before (never reused, even after
/// the newest events were deleted), in the order the events were stored.
public protocol EventHistory: Sendable {
    /// Stores `events` in one transaction and updates their sessions. An event whose (session, sequence) is already
    /// stored is skipped, so sending a batch again changes nothing.
    /// - Returns: how many events were new.
    @discardableResult
    func append(_ events: [EntitlementEvent]) async throws -> Int

    /// The events matching `filter` stored after `cursor` (`nil`: from the first), oldest first, at most `limit`.
    func page(matching filter: HistoryFilter, after cursor: Int64?, limit: Int) async throws -> HistoryPage

    /// The newest events matching `filter` older than `cursor` (`nil`: the newest of all), newest first.
    func latestPage(matching filter: HistoryFilter, before cursor: Int64?, limit: Int) async throws -> HistoryPage

    /// As ``latestPage(matching:before:limit:)`` (or, with `after`, ``page(matching:after:limit:)``), the stored views
    /// (``EventView``) joined with commas, nothing decoded.
    func rawPage(matching filter: HistoryFilter, before: Int64?, after: Int64?, limit: Int) async throws
        -> (events: RawEventList, nextCursor: Int64?)

    /// How many stored events match `filter`.
    func count(matching filter: HistoryFilter) async throws -> Int

    /// A page (as ``rawPage(matching:before:after:limit:)``) and its counts, read together: the whole history's and the
    /// filter's (counting stops past `countLimit`).
    func rawPageWithCounts(matching filter: HistoryFilter, before: Int64?, after: Int64?, limit: Int, countLimit: Int) async throws
        -> RawPage

    /// The events matching `filter` before `before`, newest first, within `seconds` of the newest of them (at least
    /// one when any is older), at most `limit`, with their counts: what "Load older" adds.
    func rawWindowPageWithCounts(matching filter: HistoryFilter, before: Int64?, seconds: TimeInterval, limit: Int, countLimit: Int)
        async throws -> RawPage

    /// Up to `limit` stored events matching `filter` with `cursor < id <= last`, oldest first, each with the facts a
    /// filter decides on, and how far the read got: what the live feed reads after a commit.
    func newRawEvents(matching filter: HistoryFilter, after cursor: Int64, upTo last: Int64, limit: Int) async throws
        -> (events: [RawEventRow], reached: Int64)

    /// How many events the history holds.
    var eventCount: Int { get async throws }

    /// How many sessions the history holds.
    var sessionCount: Int { get async throws }

    /// The ID of the newest stored event (`nil` when empty).
    func latestCursor() async throws -> Int64?

    /// The newest event ID (0 when empty) now and after every commit that stores events: what a live feed watches
    /// before reading what is new (``newRawEvents(matching:after:upTo:limit:)``). Nothing polls.
    func observeNewestEventID() -> AsyncStream<Int64>

    /// The events matching `filter` stored after `cursor` (`nil`: from the first), in batches of at most `batchSize`
    /// as they are committed, oldest first.
    func observeNewEvents(matching filter: HistoryFilter, after cursor: Int64?, batchSize: Int) -> AsyncStream<[StoredEvent]>

    /// Every session, the most recently active first (then by ID).
    func sessions() async throws -> [HistorySession]

    /// The bundle IDs of the apps the history has sessions of (at most `limit`, in no particular order): what an
    /// `app:` filter term written as people see an app (its name, the end of its bundle ID) is resolved against.
    func appBundleIDs(limit: Int) async throws -> [String]

    /// The session with this ID, if stored.
    func session(_ id: UUID) async throws -> HistorySession?

    /// Sessions a support person is looking for, the most recently active first, at most `limit`: every word of
    /// `text` starts (in any case) one of a session's values (user ID, tracking hash, visitor ID, device, session ID,
    /// app or a dot-separated part of it, Programmer, MVPD) or an alias's shown value. Empty: the latest sessions.
    func sessions(matching text: String, aliases: [SessionAlias], limit: Int) async throws -> [SessionMatch]

    /// One page of the sessions `text` finds (all when empty), sorted by `sort` over every matching session (names as
    /// `labels` give them, outcomes as of `now`), after `cursor`, at most `limit`.
    func sessionPage(matching text: String, aliases: [SessionAlias], sort: SessionSort, labels: SessionLabels, now: Date,
        after cursor: SessionCursor?, limit: Int) async throws -> SessionSortPage

    /// The values of `field` the search index holds for each of `sessions`, sorted, each once (the visitor IDs a
    /// session's app set); sessions without one are left out.
    func values(of field: SessionField, sessions ids: [UUID]) async throws -> [UUID: [String]]

    /// Deletes a session and all its events.
    /// - Returns: whether the session existed.
    @discardableResult
    func deleteSession(_ id: UUID) async throws -> Bool

    /// Records a console action (clear, import, export, reveal, undo) by `operatorName` (`nil`: a console without named
    /// operators) from `remote`.
    @discardableResult
    func audit(_ action: String, detail: String, remote: String, operator operatorName: String?, at: Date) async throws -> AuditEntry

    /// The audit log, newest first, at most `limit` entries.
    func auditEntries(limit: Int) async throws -> [AuditEntry]

    /// Keeps `backup` (replacing one with its ID) and forgets all but the newest `keep` backups.
    func saveBackup(_ backup: StorageBackup, keep: Int) async throws

    /// The backup with this ID, if kept.
    func backup(_ id: String) async throws -> StorageBackup?

    /// Kept backups, newest first, without their documents.
    func backups() async throws -> [(id: String, at: Date, reason: String)]

    /// Adds a named operator; a name is never reused, even once revoked.
    /// - Throws: ``OperatorStoreError`` when the name is taken.
    func addOperator(_ record: OperatorRecord) async throws

    /// Every operator, revoked ones too, by name.
    func operators() async throws -> [OperatorRecord]

    /// Revokes `name`'s token from `at` on (kept when already revoked); `nil` when there is no such operator.
    func revokeOperator(_ name: String, at: Date) async throws -> OperatorRecord?

    /// Deletes events beyond `retention` (too old as of `now`, then the oldest past the count) and sessions left
    /// without events.
    /// - Returns: how many events were deleted.
    @discardableResult
    func prune(_ retention: HistoryRetention, now: Date) async throws -> Int

    /// The storage failure `error` (thrown by this history) reports, in words (``HistoryProblem``), or `nil` when it
    /// is not one: a bug or a bad value, which would fail again. This is the one rule for "worth waiting out": the
    /// batcher keeps and retries a batch whose write failed with a problem (and drops one failing otherwise), and the
    /// console answers a problem 503 (507 for a full disk) with `Retry-After`. SQLite: its result codes for a
    /// read-only file, a full disk, damage, I/O errors and locks; PostgreSQL: connection errors, the server shutting
    /// down or starting, serialization failures and deadlocks, and no connection within the lease timeout.
    func problem(_ error: any Error) -> HistoryProblem?

    /// Runs `body` holding the lock named `key` for every console on this history, so actions of several consoles on
    /// one shared thing (a device folder) run one after the other, never interleaved. PostgreSQL: a session advisory
    /// lock (`pg_advisory_lock`) keyed by a stable 64-bit hash of `key`, held on a connection of its own until `body`
    /// ends (released by the server if the console dies). SQLite (the default): runs `body` at once, since a SQLite
    /// history has one console; the caller's file lock on the same machine serialises.
    func withExclusiveLock<T: Sendable>(_ key: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T

    /// Where the history is, for people (logs, the overview): the SQLite file's path (or "in memory"), or the
    /// PostgreSQL URL without its password.
    var location: String { get }

    /// As ``rawPageWithCounts(matching:before:after:limit:countLimit:)``, handing the page to `completion` instead of
    /// awaiting it, so a server's network thread can start the read and return. SQLite reads on its own reader
    /// queues (``CallbackReaders``); the default runs the async read in a task.
    func rawPageWithCounts(matching filter: HistoryFilter, before: Int64?, after: Int64?, limit: Int, countLimit: Int,
        completion: @escaping @Sendable (Result<RawPage, any Error>) -> Void)

    /// As ``rawWindowPageWithCounts(matching:before:seconds:limit:countLimit:)``, handing the page to `completion`.
    func rawWindowPageWithCounts(matching filter: HistoryFilter, before: Int64?, seconds: TimeInterval, limit: Int, countLimit: Int,
        completion: @escaping @Sendable (Result<RawPage, any Error>) -> Void)
}

extension EventHistory {
    /// Reads the page in a task and hands it to `completion` (the caller's thread never waits for the database).
    public func rawPageWithCounts(matching filter: HistoryFilter, before: Int64?, after: Int64?, limit: Int, countLimit: Int,
        completion: @escaping @Sendable (Result<RawPage, any Error>) -> Void)
    {
        Task {
            do { completion(.success(try await rawPageWithCounts(matching: filter, before: before, after: after, limit: limit, countLimit: countLimit))) }
            catch { completion(.failure(error)) }
        }
    }

    /// Reads the window in a task and hands it to `completion`.
    public func rawWindowPageWithCounts(matching filter: HistoryFilter, before: Int64?, seconds: TimeInterval, limit: Int, countLimit: Int,
        completion: @escaping @Sendable (Result<RawPage, any Error>) -> Void)
    {
        Task {
            do {
                completion(.success(try await rawWindowPageWithCounts(matching: filter, before: before, seconds: seconds, limit: limit,
                    countLimit: countLimit)))
            } catch { completion(.failure(error)) }
        }
    }
}

extension EventHistory {
    /// The first `limit` events, oldest first.
    public func page(limit: Int = 100) async throws -> HistoryPage {
        try await page(matching: .all, after: nil, limit: limit)
    }

    /// The events after `cursor`, oldest first.
    public func page(after cursor: Int64?, limit: Int = 100) async throws -> HistoryPage {
        try await page(matching: .all, after: cursor, limit: limit)
    }

    /// The first events matching `filter`, oldest first.
    public func page(matching filter: HistoryFilter, limit: Int = 100) async throws -> HistoryPage {
        try await page(matching: filter, after: nil, limit: limit)
    }

    /// The newest `limit` events, newest first.
    public func latestPage(limit: Int = 100) async throws -> HistoryPage {
        try await latestPage(matching: .all, before: nil, limit: limit)
    }

    /// The newest events matching `filter`, newest first.
    public func latestPage(matching filter: HistoryFilter, limit: Int = 100) async throws -> HistoryPage {
        try await latestPage(matching: filter, before: nil, limit: limit)
    }

    /// The newest events matching `filter` before `before`, as stored views.
    public func rawPage(matching filter: HistoryFilter, before: Int64? = nil, limit: Int = 100) async throws
        -> (events: RawEventList, nextCursor: Int64?)
    {
        try await rawPage(matching: filter, before: before, after: nil, limit: limit)
    }

    /// Every stored event in `(cursor, last]` (at most `limit`), oldest first, with its facts.
    public func newRawEvents(after cursor: Int64, upTo last: Int64, limit: Int = 1000) async throws -> (events: [RawEventRow], reached: Int64) {
        try await newRawEvents(matching: .all, after: cursor, upTo: last, limit: limit)
    }

    /// The events matching `filter` from the first, or after `cursor`, as they are committed.
    public func observeNewEvents(matching filter: HistoryFilter = .all, after cursor: Int64? = nil) -> AsyncStream<[StoredEvent]> {
        observeNewEvents(matching: filter, after: cursor, batchSize: 1000)
    }

    /// The events matching `filter` in batches of `batchSize`, from the first.
    public func observeNewEvents(matching filter: HistoryFilter, batchSize: Int) -> AsyncStream<[StoredEvent]> {
        observeNewEvents(matching: filter, after: nil, batchSize: batchSize)
    }

    /// The sessions `text` finds, at most 200.
    public func sessions(matching text: String, aliases: [SessionAlias] = []) async throws -> [SessionMatch] {
        try await sessions(matching: text, aliases: aliases, limit: 200)
    }

    /// Prunes as of now.
    @discardableResult
    public func prune(_ retention: HistoryRetention) async throws -> Int {
        try await prune(retention, now: Date())
    }
}

extension EventHistory {
    /// Runs `body` at once: one console per history, serialised by the caller's file lock.
    public func withExclusiveLock<T: Sendable>(_ key: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await body()
    }
}

extension HistoryDatabase: EventHistory {
    /// The file's path, or "in memory".
    public var location: String { path ?? "in memory" }

    /// SQLite's result codes for a read-only file, a full disk, damage, I/O errors and locks
    /// (``HistoryProblem/init(_:file:)``).
    public func problem(_ error: any Error) -> HistoryProblem? {
        HistoryProblem(error, file: path)
    }
}

extension EventHistory {
    /// Records a console action now.
    @discardableResult
    public func audit(_ action: String, detail: String, remote: String, operator operatorName: String?) async throws -> AuditEntry {
        try await audit(action, detail: detail, remote: remote, operator: operatorName, at: Date())
    }

    /// Revokes `name`'s token now.
    public func revokeOperator(_ name: String) async throws -> OperatorRecord? {
        try await revokeOperator(name, at: Date())
    }

    /// Keeps `backup` and the 49 newest others.
    public func saveBackup(_ backup: StorageBackup) async throws {
        try await saveBackup(backup, keep: 50)
    }
}
