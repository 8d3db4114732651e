import Foundation
import Locking
import MicroHTTP
import PassBackend
import PassEvents
import PassTestSupport
import Testing

/// The recorder reads an exchange after its answer went out (on its own thread, in batches): under load the login an
/// MVPD page belonged to had finished by then, and the page's exchanges went to a session of their own instead of the
/// device's (found by a fresh-clone `make test`: a v2 device's session had 5 of its 8 exchanges).
@Suite struct RecordingLateTests {
    /// Holds the recording thread at its first event until let go, then collects everything.
    final class LateSink: EventSink, @unchecked Sendable {
        let events = Mutex<[EntitlementEvent]>([])
        let gate = DispatchSemaphore(value: 0)
        let first = Mutex(true)
        func emit(_ event: EntitlementEvent) {
            if first.withLock({ f in defer { f = false }; return f }) { gate.wait() }
            events.withLock { $0.append(event) }
        }
        func lost(_ count: Int) {}
    }

    @Test func theMVPDPagesOfALoginThatFinishedBeforeTheyWereRecordedStillJoinTheDevice() async throws {
        let sink = LateSink()
        let service = BackendService(configuration: try BackendFixture.configuration(), logger: TestServer.logger)
        try await TestServer.with(PassBackend(service: service, recording: sink)) { _, client in
            let device = "late-\(UUID().uuidString.prefix(8))"
            // The whole sign-in is answered while the recorder is held: every login has ended before it reads them.
            let end = try await WebLogin(client: client).login(
                requestor: "REF30", mvpd: "Dish", device: device, username: "carol", password: "carol123")
            #expect(end?.hasPrefix("adobepass://") == true)
            sink.gate.signal()
            var pages: [EntitlementEvent] = []
            for _ in 0..<300 {
                pages = sink.events.withLock { $0 }.filter {
                    guard case .httpExchange(let exchange) = $0.kind else { return false }
                    return exchange.url.hasPrefix("/mvpd/Dish/login") && exchange.method == "POST"
                }
                if !pages.isEmpty { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            try #require(!pages.isEmpty, "the login form's exchange was recorded")
            #expect(pages.allSatisfy { $0.deviceID == device }, "\(pages.map(\.deviceID))")
        }
    }
}
