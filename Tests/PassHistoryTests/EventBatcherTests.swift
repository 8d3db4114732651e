import AccessEnabler
import Foundation
import Testing
@testable import PassHistory

@Suite("EventBatcher")
struct EventBatcherTests {
    @Test("a full buffer is written at once, in one batch per maxCount events")
    func flushesByCount() async throws {
        try await withHistory { (history: HistoryDatabase) async throws -> Void in
            let batcher = EventBatcher(database: history, maxCount: 10, maxDelay: .seconds(60))
            var factory = EventFactory()
            for i in 0..<25 { await batcher.add(factory.make(.apiCall(name: "call\(i)", arguments: [:]))) }
            await batcher.waitForWrites()  // the two full batches' writes started in add
            #expect(try await history.eventCount == 20)
            #expect(await batcher.flushCount == 2)
            #expect(await batcher.pendingCount == 5)
            await batcher.finish()
            #expect(try await history.eventCount == 25)
            #expect(await batcher.writtenCount == 25)
        }
    }

    @Test("a partial buffer is written maxDelay after its first event")
    func flushesByTime() async throws {
        try await withHistory { (history: HistoryDatabase) async throws -> Void in
            let batcher = EventBatcher(database: history, maxCount: 1000, maxDelay: .milliseconds(300))
            var factory = EventFactory()
            for event in factory.flow() { await batcher.add(event) }
            #expect(try await history.eventCount == 0)
            #expect(try await eventually(within: 30) { () async throws -> Bool in try await history.eventCount == 8 })
            #expect(await batcher.flushCount == 1)
            #expect(await batcher.pendingCount == 0)
        }
    }

    @Test("consume writes everything a stream yields, including the tail when it ends")
    func consumesStream() async throws {
        try await withHistory { (history: HistoryDatabase) async throws -> Void in
            let batcher = EventBatcher(database: history, maxCount: 3, maxDelay: .seconds(60))
            let (stream, continuation) = AsyncStream.makeStream(of: EntitlementEvent.self)
            var factory = EventFactory()
            let events = factory.flow()
            for event in events { continuation.yield(event) }
            continuation.finish()
            await batcher.consume(stream)
            #expect(try await history.page().events.map(\.event) == events)
            #expect(await batcher.droppedCount == 0)
        }
    }

    @Test("a batch that cannot be written is counted as dropped")
    func countsDrops() async throws {
        let history = try HistoryDatabase.inMemory()
        try await history.writer.write { try $0.execute(sql: "DROP TABLE event") }
        let batcher = EventBatcher(database: history, maxCount: 2)
        var factory = EventFactory()
        await batcher.add(factory.make(.error(code: "a", message: "")))
        await batcher.add(factory.make(.error(code: "b", message: "")))
        await batcher.flush()  // the full batch's write started in add; flush waits for it
        #expect(await batcher.droppedCount == 2)
        #expect(await batcher.lastError != nil)
    }
}
