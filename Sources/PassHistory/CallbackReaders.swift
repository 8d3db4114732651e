import Dispatch
import GRDB
import Locking

/// Read-only connections of their own for the reads a server answers through a completion callback
/// (``HistoryDatabase/rawPageWithCounts(matching:before:after:limit:countLimit:completion:)``): each runs on a serial
/// queue of its own, and a read goes to the connection with the fewest reads waiting.
///
/// A read is one hand-off from the caller's thread to a queue, and reads queued behind one another run back to back
/// on that queue's thread. GRDB's pool takes two hand-offs (its semaphore's queue, then the reader's) and wakes a
/// thread for each: measured, a fifth of a page's CPU under load. A slow read holds up only the reads queued behind
/// it on its connection; new reads go to the others. Connections are opened at their first read, on their queue.
final class CallbackReaders: Sendable {
    private struct State {
        /// Reads handed to each connection and not finished.
        var waiting: [Int]
        var connections: [DatabaseQueue?]
    }

    private let path: String
    private let queues: [DispatchQueue]
    private let state: Mutex<State>

    /// `count` connections to the history file at `path`.
    init(path: String, count: Int) {
        self.path = path
        queues = (0..<max(1, count)).map { DispatchQueue(label: "PassHistory.callbackReader\($0)") }
        state = Mutex(State(waiting: Array(repeating: 0, count: max(1, count)), connections: Array(repeating: nil, count: max(1, count))))
    }

    /// Runs `body` in a read transaction on the least busy connection's queue and hands its result to `completion`
    /// there. The caller's thread never waits.
    func read<T>(_ body: @escaping @Sendable (Database) throws -> T, completion: @escaping @Sendable (Result<T, any Error>) -> Void) {
        let slot = state.withLock { state -> Int in
            let slot = state.waiting.indices.min { state.waiting[$0] < state.waiting[$1] } ?? 0
            state.waiting[slot] += 1
            return slot
        }
        queues[slot].async { [self] in
            // On this connection's own queue: GRDB's synchronous access runs here, on this thread, with nothing to wait for.
            let result = Result { try connection(slot).unsafeRead { db in try Self.inReadTransaction(db, body) } }
            state.withLock { $0.waiting[slot] -= 1 }
            completion(result)
        }
    }

    /// `body` in one read transaction (one snapshot for all its statements, as GRDB's `read` gives), begun and ended
    /// with statements prepared once per connection: GRDB's `read` prepares both again for every read and wraps them
    /// in a savepoint's bookkeeping, measured at a twentieth of a page's CPU. The connection is read-only, so nothing
    /// else can be left open.
    static func inReadTransaction<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
        do {
            let value = try body(db)
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return value
        } catch {
            if !db.isInsideTransaction { throw error }
            try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute()
            throw error
        }
    }

    /// How many reads are waiting or running on each connection (tests).
    var waitingCounts: [Int] { state.withLock { $0.waiting } }

    private func connection(_ slot: Int) throws -> DatabaseQueue {
        if let connection = state.withLock({ $0.connections[slot] }) { return connection }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "PassHistory.callbackReader\(slot)"
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -16384") }
        let opened = try DatabaseQueue(path: path, configuration: configuration)
        state.withLock { $0.connections[slot] = opened }
        return opened
    }
}
