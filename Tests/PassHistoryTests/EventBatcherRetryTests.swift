import HistoryTestSupport
import AccessEnabler
import Foundation
import Locking
import Testing
@testable import PassHistory

/// The batcher while the history cannot be written: events wait in a bounded buffer (the oldest dropped past it, and
/// counted) and land, in order, once writing works again.
@Suite("EventBatcher retry")
struct EventBatcherRetryTests {
    /// What the batcher told its observer.
    final class Changes: Sendable {
        private let list = Mutex<[String]>([])
        func record(_ state: EventBatcher.WriteState) {
            list.withLock {
                switch state {
                case .failing(let problem, let waiting): $0.append("failing \(problem.kind.rawValue) \(waiting)")
                case .recovered(let saved): $0.append("recovered \(saved)")
                }
            }
        }
        var all: [String] { list.withLock { $0 } }
    }

    func batcher(_ history: HistoryDatabase, maxPending: Int = 1000, changes: Changes) -> EventBatcher {
        EventBatcher(database: history, maxCount: 100, maxDelay: .milliseconds(10), maxPending: maxPending,
            retryDelay: .milliseconds(20), maxRetryDelay: .milliseconds(200)) { changes.record($0) }
    }

    @Test("events wait while the history is read-only and land when it is writable again")
    func readOnlyThenWritable() async throws {
        try await withHistory { history in
            let changes = Changes()
            let batcher = batcher(history, changes: changes)
            try await HistoryFaults.readOnly(history, true)
            var factory = EventFactory()
            let events = (0..<250).map { factory.make(.apiCall(name: "call\($0)", arguments: [:])) }
            for event in events { await batcher.add(event) }
            await batcher.flush()
            #expect(await batcher.failure?.kind == .readOnly)
            #expect(await batcher.pendingCount == 250)
            #expect(await batcher.droppedCount == 0)
            #expect(try await history.eventCount == 0)
            // Still failing after several retries; nothing lost
            #expect(await eventually(within: 10) { await batcher.failedAttempts >= 3 })
            #expect(await batcher.pendingCount == 250)
            try await HistoryFaults.readOnly(history, false)
            #expect(try await eventually(within: 10) { try await history.eventCount == 250 })
            #expect(await eventually(within: 5) { await batcher.pendingCount == 0 })
            #expect(await batcher.failure == nil)
            #expect(await batcher.droppedCount == 0)
            #expect(try await history.page(limit: 1000).events.map(\.event) == events)
            #expect(changes.all.first?.hasPrefix("failing read_only") == true)
            #expect(changes.all.contains { $0.hasPrefix("recovered") })
        }
    }

    @Test("events wait while the disk is full and land when there is room")
    func diskFullThenRoom() async throws {
        try await withHistory { history in
            let changes = Changes()
            let batcher = batcher(history, changes: changes)
            try await HistoryFaults.diskFull(history, true)
            var factory = EventFactory()
            for i in 0..<300 { await batcher.add(factory.make(.error(code: "E\(i)", message: String(repeating: "z", count: 500)))) }
            await batcher.flush()
            #expect(await batcher.failure?.kind == .diskFull)
            #expect(await batcher.pendingCount > 0)
            try await HistoryFaults.diskFull(history, false)
            #expect(try await eventually(within: 10) { try await history.eventCount == 300 })
            #expect(await batcher.droppedCount == 0)
            #expect(changes.all.first?.hasPrefix("failing disk_full") == true)
        }
    }

    @Test("past the bound the oldest waiting events are dropped and counted; the newest land")
    func boundDropsOldest() async throws {
        try await withHistory { history in
            let batcher = batcher(history, maxPending: 50, changes: Changes())
            try await HistoryFaults.readOnly(history, true)
            var factory = EventFactory()
            let events = (0..<80).map { factory.make(.apiCall(name: "call\($0)", arguments: [:])) }
            for event in events { await batcher.add(event) }
            await batcher.flush()
            #expect(await batcher.droppedCount == 30)
            #expect(await batcher.pendingCount == 50)
            try await HistoryFaults.readOnly(history, false)
            #expect(try await eventually(within: 10) { try await history.eventCount == 50 })
            #expect(try await history.page(limit: 100).events.map(\.event) == Array(events.suffix(50)))
            #expect(await batcher.droppedCount == 30)
        }
    }

    @Test("retries back off: the delay doubles per failure up to the longest")
    func backoff() async throws {
        let batcher = EventBatcher(database: try HistoryDatabase.inMemory(), retryDelay: .milliseconds(100), maxRetryDelay: .seconds(1))
        #expect(await batcher.delay(afterFailures: 1) == .milliseconds(100))
        #expect(await batcher.delay(afterFailures: 2) == .milliseconds(200))
        #expect(await batcher.delay(afterFailures: 4) == .milliseconds(800))
        #expect(await batcher.delay(afterFailures: 5) == .seconds(1))
        #expect(await batcher.delay(afterFailures: 10_000) == .seconds(1))
    }
}
