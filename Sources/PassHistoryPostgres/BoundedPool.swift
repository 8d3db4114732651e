import Foundation
import Logging
import PassHistory
import PostgresNIO
import Synchronization

/// The history's connection pool with a bound on the wait for a connection.
///
/// While the server cannot be reached, PostgresNIO's pool keeps trying to connect (backing off) and a lease waits, a
/// minute and more before its circuit breaker gives up. A console's page must not hang that long: every use of the
/// history here leases through this, and a lease not granted within ``leaseTimeout`` is given up (the request is
/// withdrawn from the pool) with a ``HistoryProblem`` of kind `unreachable`: the console answers 503 in words, the
/// batcher keeps the events and retries. Only the wait for a connection is bounded; a query that has its connection
/// runs as long as it needs (an export, a large count).
struct BoundedPool: Sendable {
    /// The pool PostgresNIO runs.
    let pool: PostgresClient
    /// The longest wait for a connection.
    let leaseTimeout: Duration
    /// The database's URL without its password, for the problem's words.
    let location: String

    /// Runs `body` with a connection of the pool, leased within ``leaseTimeout``.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let granted = Granted()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await pool.withConnection { connection in
                    granted.value.store(true, ordering: .releasing)
                    return try await body(connection)
                }
            }
            let timeout = leaseTimeout, location = location
            group.addTask {
                try await Task.sleep(for: timeout)
                guard granted.value.load(ordering: .acquiring) else {
                    throw HistoryProblem(kind: .unreachable, file: location,
                        detail: "no connection to the database within \(Self.words(timeout)) (the lease timeout)")
                }
                return nil
            }
            while let result = try await group.next() {
                guard let value = result else { continue }
                group.cancelAll()
                return value
            }
            throw CancellationError()
        }
    }

    /// Runs `body` in a transaction on a connection leased within ``leaseTimeout``: committed when it returns, rolled
    /// back when it throws.
    func withTransaction<T: Sendable>(logger: Logger, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in
            try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    /// The rows of `query`, run on a connection leased within ``leaseTimeout`` (read to the end before the connection
    /// goes back to the pool).
    @discardableResult
    func query(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await withConnection { connection in try await connection.query(query, logger: logger).collect() }
    }

    /// Whether the pool handed out the connection, shared by the lease and its timer.
    private final class Granted: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// `duration` for people: "5 s", "250 ms".
    static func words(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return attoseconds == 0 ? "\(seconds) s" : "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms"
    }
}
