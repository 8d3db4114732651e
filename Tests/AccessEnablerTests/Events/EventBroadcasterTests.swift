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
}
