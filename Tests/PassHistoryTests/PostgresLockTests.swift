import Foundation
import HistoryTestSupport
import Locking
import PassHistory
import PassHistoryPostgres
import PassTestSupport
import Testing

/// The history's exclusive lock across consoles (``EventHistory/withExclusiveLock(_:_:)``): on PostgreSQL two
/// histories on one database (two consoles) holding the same key take turns; different keys do not wait on each other.
@Suite("PostgreSQL exclusive lock")
struct PostgresLockTests {
    final class Log: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test("two consoles holding one key take turns: one's body ends before the other's starts")
    func sameKeyTakesTurns() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        let open = { try await cluster.openHistory(database: database) }
        let first = try await open(), second = try await open()
        let log = Log()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, history) in [("a", first), ("b", second)] {
                for round in 0..<5 {
                    group.addTask {
                        try await history.withExclusiveLock("device folder /shared") {
                            log.add("start \(name)\(round)")
                            try await Task.sleep(for: .milliseconds(10))
                            log.add("end \(name)\(round)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        // Every start is followed by its own end: no two bodies overlapped
        let lines = log.all
        #expect(lines.count == 20)
        for pair in stride(from: 0, to: lines.count, by: 2) {
            #expect(lines[pair].hasPrefix("start ") && lines[pair + 1] == "end " + lines[pair].dropFirst(6), "\(lines)")
        }
        // A key another console holds does not stop a different key
        let held = try await first.withExclusiveLock("device folder /one") {
            try await second.withExclusiveLock("device folder /two") { "both held" }
        }
        #expect(held == "both held")
        await first.close()
        await second.close()
    }
}
