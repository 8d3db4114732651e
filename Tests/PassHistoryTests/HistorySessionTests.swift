import AccessEnabler
import Foundation
import HistoryTestSupport
import Testing
@testable import PassHistory

@Suite("History sessions")
struct HistorySessionTests {
    @Test("append creates the session row, then widens its span, counts events and keeps the Programmer", arguments: HistoryBackend.allCases)
    func upsertAndCounts(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            var factory = EventFactory(requestorID: nil)
            let first = [factory.make(.apiCall(name: "init", arguments: [:]))]
            try await history.append(first)
            var session = try #require(try await history.session(factory.sessionID))
            #expect(session.requestorID == nil)
            #expect(session.eventCount == 1)
            #expect(session.app == factory.app && session.deviceID == factory.deviceID)
            #expect(session.firstSeen == first[0].timestamp && session.lastSeen == first[0].timestamp)

            let later = [
                factory.make(.apiCall(name: "setRequestor", arguments: [:]), requestor: "REF30"),
                factory.make(.stateChanged(flow: "requestor", from: "idle", to: "configuring"), requestor: .some(nil)),
            ]
            try await history.append(later)
            session = try #require(try await history.session(factory.sessionID))
            #expect(session.requestorID == "REF30")
            #expect(session.eventCount == 3)
            #expect(session.firstSeen == first[0].timestamp)
            #expect(abs(session.lastSeen.timeIntervalSince(later[1].timestamp)) < 0.000_001)
        }
    }

    @Test("sessions are listed most recently active first", arguments: HistoryBackend.allCases)
    func newestFirst(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            var old = EventFactory(start: Date(timeIntervalSince1970: 1_000))
            var recent = EventFactory(start: Date(timeIntervalSince1970: 3_000))
            var middle = EventFactory(start: Date(timeIntervalSince1970: 2_000))
            try await history.append([old.make(.apiCall(name: "a", arguments: [:])), recent.make(.apiCall(name: "b", arguments: [:]))])
            try await history.append([middle.make(.apiCall(name: "c", arguments: [:]))])
            #expect(try await history.sessions().map(\.id) == [recent.sessionID, middle.sessionID, old.sessionID])
            // Activity moves a session up.
            old.start = Date(timeIntervalSince1970: 4_000)
            try await history.append([old.make(.apiCall(name: "d", arguments: [:]))])
            #expect(try await history.sessions().map(\.id) == [old.sessionID, recent.sessionID, middle.sessionID])
            #expect(try await history.sessions().map(\.eventCount) == [2, 1, 1])
        }
    }

    @Test("deleting a session deletes its events and nothing else", arguments: HistoryBackend.allCases)
    func cascadeDelete(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            var a = EventFactory()
            var b = EventFactory()
            try await history.append(a.flow() + b.flow())
            #expect(try await history.eventCount == 16)
            #expect(try await history.deleteSession(a.sessionID))
            #expect(try await history.eventCount == 8)
            #expect(try await history.sessions().map(\.id) == [b.sessionID])
            #expect(try await history.page(matching: HistoryFilter(sessionID: a.sessionID)).events.isEmpty)
            #expect(try await history.deleteSession(a.sessionID) == false)
        }
    }
}
