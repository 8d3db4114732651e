import AccessEnabler
import Foundation
import PassHistory
import Testing

/// The console reads `GET /api/events` through `any EventHistory`'s completion callback: on SQLite that must stay the
/// history's own reader queue (``CallbackReaders``: no Swift task, one hand-off), not the protocol's default that
/// runs the async read in a task (PostgreSQL's way).
@Suite("EventHistory callbacks")
struct EventHistoryCallbackTests {
    @Test("through the protocol, SQLite's page callbacks run on its reader queues, outside any task")
    func sqliteCallbacksRunOnReaderQueues() async throws {
        let history: any EventHistory = try HistoryDatabase.inMemory()
        var factory = EventFactory()
        try await history.append(factory.flow())
        let pageInTask = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Bool, Int), any Error>) in
            history.rawPageWithCounts(matching: .all, before: nil, after: nil, limit: 10, countLimit: 100) { result in
                let inTask = withUnsafeCurrentTask { $0 != nil }
                continuation.resume(with: result.map { (inTask, $0.total) })
            }
        }
        #expect(pageInTask.0 == false && pageInTask.1 > 0)
        let windowInTask = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
            history.rawWindowPageWithCounts(matching: .all, before: nil, seconds: 60, limit: 10, countLimit: 100) { result in
                let inTask = withUnsafeCurrentTask { $0 != nil }
                continuation.resume(with: result.map { _ in inTask })
            }
        }
        #expect(windowInTask == false)
    }
}
