import Foundation
import Locking
import PassHistory

/// The named operators as the door reads them: a copy of the history's small `operator` table held in memory, so
/// judging a request's head never waits for the database on the network thread (a synchronous read there stalled
/// every request behind a busy history, and PostgreSQL offers no synchronous read at all).
///
/// The copy is read when the console is made and when it starts, then again every ``refreshInterval`` while it
/// runs: an operator added or revoked by `passconsole operator` (another process, or another console on the same
/// history) counts within that interval. When the history cannot be read the last copy stands for ``staleLimit``;
/// past it, a console with operators lets no one in (``lookUp(_:)`` is `nil`) and one without keeps today's
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

    private let history: HistoryDatabase
    let refreshInterval: Duration
    /// How long a copy stands while the history cannot be read.
    let staleLimit: Duration
    private let snapshot = Mutex(Snapshot())
    private let refresher = Mutex<Task<Void, Never>?>(nil)

    /// Reads the operators at once (on the caller's thread: a console is made before it serves).
    init(history: HistoryDatabase, refreshInterval: Duration = OperatorDirectory.defaultRefreshInterval, staleLimit: Duration = .seconds(30)) {
        self.history = history
        self.refreshInterval = refreshInterval
        self.staleLimit = staleLimit
        loadNow()
    }

    deinit { refresher.withLock { $0?.cancel() } }

    /// What the last copy says about `token`; `nil` when the history has not been readable for ``staleLimit`` and
    /// the console had operators.
    func lookUp(_ token: String?) -> OperatorLookup? {
        let copy = snapshot.withLock { $0 }
        if copy.hasOperators, copy.readAt.map({ ContinuousClock.now - $0 > staleLimit }) ?? true { return nil }
        guard copy.hasOperators, let token else { return OperatorLookup(hasOperators: copy.hasOperators, match: nil) }
        return OperatorLookup(hasOperators: true, match: copy.byTokenHash[OperatorToken.hash(token)])
    }

    /// Reads the table now, synchronously, on the history's own head connection (never the reader pool): for a
    /// console being made or started, not for a request.
    func loadNow() {
        if let records = try? history.operatorsNow() { store(records) }
    }

    /// Reads the table again (async, through the history's readers); a failed read keeps the last copy.
    func refresh() async {
        if let records = try? await history.operators() { store(records) }
    }

    /// Starts re-reading every ``refreshInterval`` until ``stop()``.
    func startRefreshing() {
        let interval = refreshInterval
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                await self.refresh()
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
