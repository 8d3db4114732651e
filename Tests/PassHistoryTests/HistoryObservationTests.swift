import AccessEnabler
import Foundation
import HistoryTestSupport
import PassTestSupport
import Testing
@testable import PassHistory

@Suite("History observation")
struct HistoryObservationTests {
    @Test("new events are delivered after the cursor, without polling", arguments: HistoryBackend.allCases)
    func deliversNewEvents(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            var factory = EventFactory()
            let events = factory.flow()
            try await history.append(Array(events.prefix(3)))
            let stream = history.observeNewEvents(after: try await history.latestCursor())
            let appender = Task {
                try await Task.sleep(for: .milliseconds(50))
                try await history.append(Array(events.dropFirst(3)))
            }
            let batch = try #require(await first(of: stream, within: TestTime.seconds(60)))
            try await appender.value
            #expect(batch.map(\.event) == Array(events.dropFirst(3)))
        }
    }

    @Test("a nil cursor replays what is stored, in batches, then goes on live; a filter applies", arguments: HistoryBackend.allCases)
    func replayThenLive(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            var factory = EventFactory()
            let events = factory.flow()
            try await history.append(events)
            let stream = history.observeNewEvents(matching: HistoryFilter(kinds: [.callback]), batchSize: 1)
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next()?.map(\.event) == [events[3]])
            #expect(await iterator.next()?.map(\.event) == [events[5]])
            let more = [factory.make(.apiCall(name: "getAuthorization", arguments: [:])),
                        factory.make(.callback(callback: .setToken(token: "[redacted]", resource: "res")))]
            try await history.append(more)
            #expect(await iterator.next()?.map(\.event) == [more[1]])
        }
    }

    @Test("an in-memory history is observable too")
    func inMemory() async throws {
        let history = try HistoryDatabase.inMemory()
        let stream = history.observeNewEvents()
        var factory = EventFactory()
        let event = factory.make(.error(code: "X", message: "boom"))
        let appender = Task {
            try await Task.sleep(for: .milliseconds(50))
            try await history.append([event])
        }
        let batch = await first(of: stream, within: TestTime.seconds(60))
        try await appender.value
        #expect(batch?.map(\.event) == [event])
    }
}
