import Foundation
import Testing
@testable import AccessEnabler

/// The broadcaster keeps the last events for late subscribers (the console opening an app that has run for hours).
struct EventBroadcasterTests {
    static func event(_ sequence: Int) -> EntitlementEvent {
        EntitlementEvent(
            sequence: sequence, timestamp: Date(timeIntervalSinceReferenceDate: Double(sequence)), sessionID: UUID(),
            deviceID: "d", app: AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234"), requestorID: "REF30",
            mvpdID: nil, kind: .apiCall(name: "call\(sequence)", arguments: [:]))
    }

    @Test(arguments: [0, 1, 9, 10, 11, 19, 20, 21, 57])
    func theLastEventsAreKeptInOrderWhateverHowManyCame(published: Int) async {
        let broadcaster = EventBroadcaster(keep: 10)
        for sequence in 0..<published { broadcaster.publish(Self.event(sequence)) }
        let expected = Array(max(0, published - 10)..<published)
        #expect(broadcaster.recent.map(\.sequence) == expected)
        // A late subscriber gets the same events first, then what comes next
        let stream = broadcaster.subscribe(replay: true)
        broadcaster.publish(Self.event(published))
        broadcaster.finish()
        var received: [Int] = []
        for await event in stream { received.append(event.sequence) }
        #expect(received == expected + [published])
    }

    /// Events are published as the engine made them; whatever leaves the broadcaster — to a live subscriber, to a late
    /// one, through `recent` — has its tokens cut short.
    @Test func everyWayOutIsRedacted() async {
        let token = "<signatureInfo>" + String(repeating: "A", count: 300) + "</signatureInfo>"
        func event(_ sequence: Int, _ kind: EntitlementEvent.Kind) -> EntitlementEvent {
            var made = Self.event(sequence)
            made.kind = kind
            return made
        }
        let secret = [
            event(1, .callback(callback: .setToken(token: token, resource: "news"))),
            event(2, .httpExchange(exchange: HTTPExchange(
                method: "POST", url: "http://127.0.0.1/adobe-services/1.0/deviceShortAuthorize",
                parameters: ["authz_token": token, "resource_id": "news"], status: 200, responseBody: token, failure: nil, durationMs: 1))),
        ]
        func leaks(_ events: [EntitlementEvent]) -> Bool {
            events.contains { String(decoding: try! JSONEncoder().encode($0), as: UTF8.self).contains(String(repeating: "A", count: 100)) }
        }
        let broadcaster = EventBroadcaster(keep: 10)
        let live = broadcaster.subscribe(replay: false)
        for event in secret { broadcaster.publish(event) }
        let late = broadcaster.subscribe(replay: true)
        broadcaster.finish()
        var heardLive: [EntitlementEvent] = []
        for await event in live { heardLive.append(event) }
        var heardLate: [EntitlementEvent] = []
        for await event in late { heardLate.append(event) }
        #expect(heardLive.count == 2 && heardLate.count == 2 && broadcaster.recent.count == 2)
        #expect(!leaks(heardLive))
        #expect(!leaks(heardLate))
        #expect(!leaks(broadcaster.recent))
        #expect(leaks(secret), "the check itself finds an unredacted token")
        if case .httpExchange(let exchange) = broadcaster.recent[1].kind {
            #expect(exchange.parameters["resource_id"] == "news", "only secrets are cut")
        } else {
            Issue.record("the exchange came out as another kind")
        }
    }
}
