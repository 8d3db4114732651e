import Foundation
import Locking
import PassHistory

/// The named operators as the door reads them: a copy of the history's small `operator` table held in memory, so
/// judging a request's head never waits for the database on the network thread (a synchronous read there stalled
/// every request behind a busy history, and PostgreSQL offers no synchronous read at all).
///
/// On SQLite the copy is read when the console is made and when it starts (a synchronous read of the file's head
/// connection); on PostgreSQL, which has no synchronous read, by ``refresh()`` awaited before the console serves
/// (`Console.prepare()`) — until a first read succeeds such a console lets no one in. Then again every
/// ``refreshInterval`` while it runs: an operator added or revoked by `passconsole operator` (another process, or another console on the same
/// history) counts within that interval. When the history cannot be read the last copy stands for ``staleLimit``;
/// past it, a console with operators lets no one in (``lookUp(tokenHash:)`` is `nil`) and one without keeps today's
/// single-user behaviour (its history errors are answered by the routes).
final class OperatorDirectory: Sendable {
    /// The operators as last read, by token hash.
    struct Snapshot: Sendable {
        var hasOperators: Bool
        var byTokenHash: [String: OperatorRecord]
        /// When this copy was read (``ContinuousClock``), or `nil` before any read succeeded.
        var readAt: ContinuousClock.Instant?

        init(_ records: [OperatorRecord], at instant: ContinuousClock.Instant) {
            hasOperators = !records.isEmpty
            byTokenHash = Dictionary(records.map { ($0.tokenHash, $0) }, uniquingKeysWith: { first, _ in first })
            readAt = instant
        }

        init() {
            hasOperators = false
            byTokenHash = [:]
            readAt = nil
        }
    }

    static let defaultRefreshInterval: Duration = .seconds(1)

    private let history: any EventHistory
    /// Whether a request may be judged before any read succeeded (as a console without operators): SQLite's, whose
    /// first read is made with the console; not PostgreSQL's, where a console with operators must not open before
    /// its first read.
    private let judgesBeforeFirstRead: Bool
    let refreshInterval: Duration
    /// How long a copy stands while the history cannot be read.
    let staleLimit: Duration
    private let snapshot = Mutex(Snapshot())
    private let refresher = Mutex<Task<Void, Never>?>(nil)
    /// Called after every periodic refresh, read or not (the console judges its open live feeds again).
    private let afterRefresh = Mutex<(@Sendable () -> Void)?>(nil)

    /// Calls `action` after every periodic refresh (``startRefreshing()``), whether the read succeeded or not.
    func afterEachRefresh(_ action: @escaping @Sendable () -> Void) {
        afterRefresh.withLock { $0 = action }
    }

    /// Reads the operators at once on SQLite (on the caller's thread: a console is made before it serves); a
    /// PostgreSQL history is read by ``refresh()``.
    init(history: any EventHistory, refreshInterval: Duration = OperatorDirectory.defaultRefreshInterval, staleLimit: Duration = .seconds(30)) {
        self.history = history
        judgesBeforeFirstRead = history is HistoryDatabase
        self.refreshInterval = refreshInterval
        self.staleLimit = staleLimit
        loadNow()
    }

    deinit { refresher.withLock { $0?.cancel() } }

    /// What the last copy says about the token whose hash is `tokenHash` (``OperatorToken/hash(_:)``); `nil` when the
    /// history has not been readable for ``staleLimit`` and the console had operators.
    func lookUp(tokenHash: String?) -> OperatorLookup? {
        let copy = snapshot.withLock { $0 }
        if copy.readAt == nil, !judgesBeforeFirstRead { return nil }
        if copy.hasOperators, copy.readAt.map({ ContinuousClock.now - $0 > staleLimit }) ?? true { return nil }
        guard copy.hasOperators, let tokenHash else { return OperatorLookup(hasOperators: copy.hasOperators, match: nil) }
        return OperatorLookup(hasOperators: true, match: copy.byTokenHash[tokenHash])
    }

    /// Reads the table now, synchronously, on a SQLite history's own head connection (never the reader pool): for a
    /// console being made or started, not for a request. Nothing on PostgreSQL (see ``refresh()``).
    func loadNow() {
        guard let sqlite = history as? HistoryDatabase else { return }
        if let records = try? sqlite.operatorsNow() { store(records) }
    }

    /// Reads the table again (async, through the history's readers); a failed read keeps the last copy.
    func refresh() async {
        _ = try? await load()
    }

    /// Reads the table now (async) and keeps it; throws when the history cannot be read.
    func load() async throws {
        store(try await history.operators())
    }

    /// Starts re-reading every ``refreshInterval`` until ``stop()``.
    func startRefreshing() {
        let interval = refreshInterval
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                await self.refresh()
                self.afterRefresh.withLock { $0 }?()
            }
        }
        refresher.withLock {
            $0?.cancel()
            $0 = task
        }
    }

    func stop() { refresher.withLock { $0?.cancel(); $0 = nil } }

    private func store(_ records: [OperatorRecord]) {
        let fresh = Snapshot(records, at: .now)
        snapshot.withLock { $0 = fresh }
    }
}
