import Foundation
@testable import PassConsole
import PassEvents
import PassHistory
import Testing

/// Under `passconsole serve` the backend records what it serves, and the demo apps' SDKs record the same exchanges:
/// the console shows one session per app run, not a second one per device from the backend's copy (#25 part 1).
struct ServedJoinTests {
    @Test("a demo app's sign-in recorded by its SDK and by the backend is one session; the backend's sign-in is in it")
    func aDemoAppsExchangesAreOneSession() async throws {
        try await ConsoleFixture.with(recordBackend: true) { fixture in
            try await fixture.start("news-ios")
            try await fixture.signIn("news-ios")
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            let sessionID = try #require(fixture.console.apps.first { $0.spec.id == "news-ios" }?.runningSession?.sessionID)
            // the backend's record of the sign-in (only the server saw it) lands in the app's own session
            var joined: [StoredEventSummary] = []
            for _ in 0..<600 {
                joined = try await Self.served(fixture, session: sessionID)
                if joined.contains(where: { $0.change == "signedIn" }) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(joined.contains { $0.change == "signedIn" }, "\(joined)")
            #expect(joined.allSatisfy { $0.change != nil }, "the backend's copies of the SDK's own exchanges are not stored again")
            let sessions = try await fixture.sqlite.sessions()
            let phone = sessions.filter { $0.deviceID == (fixture.console.apps.first { $0.spec.id == "news-ios" }?.runningSession?.deviceID) }
            #expect(phone.map(\.id) == [sessionID], "one session for the app on the phone: \(phone.map(\.bundleID))")
            #expect(!sessions.contains { $0.deviceID.hasPrefix("address:") || $0.bundleID == "ios" }, "\(sessions.map { "\($0.bundleID) \($0.deviceID) \($0.requestorID ?? "-")" })")
        }
    }

    @Test("a proxy's record of an SDK call is kept, though a demo app of the same Programmer runs: it came from elsewhere")
    func aProxysRecordIsNotTakenForADemoAppsOwn() async throws {
        try await ConsoleFixture.with { fixture in
            try await fixture.start("news-ios")
            let app = try #require(fixture.console.apps.first { $0.spec.id == "news-ios" })
            let exchange = HTTPExchange(method: "GET", url: "/adobe-services/1.0/config/REF30?client_type=ios", parameters: [:],
                status: 200, responseBody: "<config/>", failure: nil, durationMs: 1,
                served: ServedFacts(recorder: .proxy, client: .ios, operation: "adobe-services config"))
            let event = EntitlementEvent(sequence: 1, timestamp: Date(), sessionID: UUID(), deviceID: "address:192.0.2.9",
                app: AppIdentity(bundleID: "ios", teamID: ""), requestorID: "REF30", mvpdID: nil, kind: .httpExchange(exchange: exchange))
            #expect(ServedEventSink.join(event, apps: [app]) == event)
            var backend = event
            backend.kind = .httpExchange(exchange: HTTPExchange(method: "GET", url: exchange.url, parameters: [:], status: 200,
                responseBody: nil, failure: nil, durationMs: 1, served: ServedFacts(recorder: .backend, client: .ios)))
            #expect(ServedEventSink.join(backend, apps: [app]) == nil, "the local backend's copy of a demo app's call is dropped")
        }
    }

    @Test("exchanges the recorder dropped are counted in the overview's dropped events, beside what reporters dropped")
    func droppedExchangesAreCountedInTheOverview() async throws {
        try await ConsoleFixture.with { fixture in
            fixture.console.servedEventSink.lost(7)
            _ = try await fixture.console.ingest([], droppedByReporter: 5)
            #expect(await fixture.console.droppedCount() == 12)
        }
    }

    struct StoredEventSummary: CustomStringConvertible {
        var sequence: Int
        var change: String?
        var description: String { "\(sequence) \(change ?? "-")" }
    }

    static func served(_ fixture: ConsoleFixture, session: UUID) async throws -> [StoredEventSummary] {
        let page = try await fixture.sqlite.page(matching: HistoryFilter(sessionID: session), after: nil, limit: 1000)
        return page.events.compactMap { stored in
            guard case .httpExchange(let exchange) = stored.event.kind, let served = exchange.served else { return nil }
            return StoredEventSummary(sequence: stored.event.sequence, change: served.change?.rawValue)
        }
    }
}
