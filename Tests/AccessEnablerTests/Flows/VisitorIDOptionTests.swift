import AccessEnabler
import Foundation
import Locking
import PassProtocol
import Testing

/// `setOptions([OPTION_VISITOR_ID: …])` through the real SDK against the real backend (spec §1.2, the cookbook's
/// visitor ID section): sent with every request after it, recorded by the backend; a value that cannot be a header
/// is refused with an error event and never sent.
struct VisitorIDOptionTests {
    /// The exchanges and errors an app's event stream carries, collected while `body` runs.
    private static func recording(_ app: TestApp, _ body: () async throws -> Void) async rethrows -> (exchanges: [HTTPExchange], errors: [String]) {
        let seen = Mutex<(exchanges: [HTTPExchange], errors: [String])>(([], []))
        let events = app.enabler.events()
        let reader = Task {
            for await event in events {
                switch event.kind {
                case .httpExchange(let exchange): seen.withLock { $0.exchanges.append(exchange) }
                case .error(_, let message): seen.withLock { $0.errors.append(message) }
                default: break
                }
            }
        }
        try await body()
        try? await Task.sleep(for: .milliseconds(100))  // the last exchange's event follows its callback
        reader.cancel()
        return seen.withLock { $0 }
    }

    @Test func theVisitorIDTravelsWithEveryRequestAndTheBackendRecordsIt() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app()
            let seen = try await Self.recording(app) {
                app.enabler.setOptions([PassConstants.OPTION_VISITOR_ID: "visitor-42"])
                await app.start(base: fixture.serviceProvider)
                try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
                app.enabler.getAuthorization("news")
                await app.settle()
            }
            #expect(seen.exchanges.count >= 4)
            #expect(seen.exchanges.allSatisfy { $0.headers[PassConstants.HEADER_VISITOR_ID] == "visitor-42" })
            let records = fixture.service.visitorRecords
            #expect(records.map(\.event) == [.signIn, .authorization])
            #expect(records.allSatisfy { $0.visitorID == "visitor-42" && $0.deviceID == "device-1" && $0.mvpdID == "Dish" })
        }
    }

    @Test(arguments: EntitlementProtocol.allCases)
    func aVisitorIDThatIsNotAHeaderValueIsRefusedAndNeverSent(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            let seen = await Self.recording(app) {
                app.enabler.setOptions([PassConstants.OPTION_VISITOR_ID: "v1\r\nX-Injected: yes"])
                await app.start(base: fixture.serviceProvider)
            }
            #expect(seen.errors.contains { $0.contains("visitorID") }, "\(seen.errors)")
            #expect(!seen.exchanges.isEmpty)
            #expect(seen.exchanges.allSatisfy { $0.headers[PassConstants.HEADER_VISITOR_ID] == nil && $0.headers["X-Injected"] == nil })
        }
    }
}
