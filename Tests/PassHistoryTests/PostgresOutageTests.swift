import AccessEnabler
import Foundation
import HistoryTestSupport
import PassHistory
import PassHistoryPostgres
import PassTestSupport
import PostgresNIO
import Testing

/// The PostgreSQL history while its server is away (issue #18): which of its errors are worth waiting out (one rule,
/// ``EventHistory/problem(_:)``, that the batcher and the console both follow), and that the batcher keeps the events
/// of a stopped server and stores each once when it is back. The outage runs on a cluster of its own: stopping the
/// shared one would break every other test.
@Suite("PostgreSQL outage")
struct PostgresOutageTests {
    @Test("a batch written while PostgreSQL is stopped is kept and retried; every event is stored once when it is back")
    func batcherRetriesWhileTheServerIsStopped() async throws {
        let cluster = try await PostgresCluster.startOwn()
        let database = try await cluster.createDatabase()
        let history = try await cluster.openHistory(database: database, leaseTimeout: .milliseconds(500))
        let batcher = EventBatcher(database: history, maxCount: 40, maxDelay: .milliseconds(10), retryDelay: .milliseconds(100),
            maxRetryDelay: .milliseconds(400))
        var factory = EventFactory()
        let before = (0..<30).map { factory.make(.apiCall(name: "before\($0)", arguments: [:])) }
        for event in before { await batcher.add(event) }
        await batcher.flush()
        #expect(try await history.eventCount == 30)

        // When the server stops (its connections are ended) and events keep coming
        try await cluster.stopServer()
        let during = (0..<100).map { factory.make(.apiCall(name: "during\($0)", arguments: [:])) }
        for event in during { await batcher.add(event) }
        await batcher.flush()
        // Then the batch is kept for a retry, not dropped, and the failure says the database is unreachable
        let lastError = await batcher.lastError
        #expect(await batcher.failure?.kind == .unreachable, "\(String(describing: lastError))")
        #expect(await batcher.droppedCount == 0)
        #expect(await batcher.pendingCount == 100)
        #expect(await eventually(within: 30) { await batcher.failedAttempts >= 3 })
        #expect(await batcher.droppedCount == 0)

        // And once the server is back, every event is stored once, in order
        try await cluster.startServer()
        #expect(await eventually(within: 60) { await batcher.pendingCount == 0 })
        #expect(await batcher.failure == nil)
        #expect(await batcher.droppedCount == 0)
        #expect(try await history.eventCount == 130)
        #expect(try await history.page(limit: 1000).events.map(\.event) == before + during)
        await history.close()
        await cluster.remove()
    }

    @Test("a read while PostgreSQL is stopped throws `unreachable` once the lease timeout passes, and works again after")
    func readsFailWithinTheLeaseTimeout() async throws {
        let cluster = try await PostgresCluster.startOwn()
        let database = try await cluster.createDatabase()
        let history = try await cluster.openHistory(database: database, leaseTimeout: .milliseconds(500))
        var factory = EventFactory()
        try await history.append([factory.make(.apiCall(name: "one", arguments: [:]))])
        try await cluster.stopServer()
        // Every read fails (none waits on the pool for good: PostgresNIO's own breaker gives up only after a minute)
        // with a problem naming the database, never its password
        for _ in 0..<3 {
            let outcome = await Self.outcome(within: TestTime.seconds(20)) { _ = try await history.latestPage(limit: 10) }
            guard case .failed(let error) = outcome else {
                Issue.record("the read \(outcome) while the server was stopped")
                continue
            }
            let problem = try #require(history.problem(error), "\(error)")
            #expect(problem.kind == .unreachable)
            #expect(problem.message.contains("unreachable") && problem.message.contains("postgres://"))
            #expect(!problem.description.contains(cluster.password))
        }
        try await cluster.startServer()
        #expect(await eventually(within: 60) { (try? await history.eventCount) == 1 })
        await history.close()
        await cluster.remove()
    }

    /// How a call ended: it worked, it threw, or it had not answered by the deadline (a hang, not a speed bound).
    enum Outcome: CustomStringConvertible {
        case worked, failed(any Error), hung
        var description: String {
            switch self {
            case .worked: "worked"
            case .failed(let error): "failed: \(error)"
            case .hung: "had not answered by the deadline"
            }
        }
    }

    /// Runs `body`, giving up waiting on it after `seconds`.
    static func outcome(within seconds: Double, _ body: @escaping @Sendable () async throws -> Void) async -> Outcome {
        await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do { try await body(); return .worked } catch { return .failed(error) }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return .hung
            }
            let first = await group.next() ?? .hung
            group.cancelAll()
            return first
        }
    }

    /// SQLSTATE (as `RAISE … USING ERRCODE` names it) and the problem kind the history calls it (`nil`: not one).
    static let serverErrors: [(String, HistoryProblem.Kind?)] = [
        ("serialization_failure", .busy), ("deadlock_detected", .busy), ("lock_not_available", .busy),
        ("too_many_connections", .busy), ("admin_shutdown", .unreachable), ("cannot_connect_now", .unreachable),
        ("connection_failure", .unreachable), ("disk_full", .diskFull), ("read_only_sql_transaction", .readOnly),
        ("data_corrupted", .damaged), ("io_error", .ioError),
        // A bug or a bad value would fail again: not worth a retry
        ("unique_violation", nil), ("syntax_error", nil), ("division_by_zero", nil),
    ]

    @Test("PostgreSQL's SQLSTATEs worth waiting out are problems, the rest are not", arguments: serverErrors)
    func serverErrorsMapToProblems(condition: String, kind: HistoryProblem.Kind?) async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        let history = try await cluster.openHistory(database: database)
        let connection = try await PostgresConnection.connect(configuration: PostgresConnection.Configuration(host: cluster.host,
            port: cluster.port, username: cluster.user, password: cluster.password, database: database, tls: .disable), id: 1,
            logger: PostgresHistory.defaultLogger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL:
                "DO $$ BEGIN RAISE EXCEPTION 'raised by the test' USING ERRCODE = '\(condition)'; END $$"), logger: PostgresHistory.defaultLogger)
            Issue.record("the statement did not fail")
        } catch {
            #expect(history.problem(error)?.kind == kind, "\(String(reflecting: error))")
        }
        try await connection.close()
        await history.close()
    }

    @Test("the SQLite history's rule is SQLite's: a read-only file is a problem, a bad value is not")
    func sqliteRule() async throws {
        try await withHistory(.sqlite) { history in
            #expect(history.problem(HistoryProblem(kind: .readOnly, file: nil, detail: "x"))?.kind == .readOnly)
            #expect(history.problem(CocoaError(.fileReadCorruptFile)) == nil)
        }
    }
}
