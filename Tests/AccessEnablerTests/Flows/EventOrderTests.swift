import AccessEnabler
import Foundation
import Testing

/// One correlated timeline: an HTTP exchange is in the event stream before the callback it led to, every time.
@Suite struct EventOrderTests {
    @Test(arguments: EntitlementProtocol.allCases) func eachExchangeIsPublishedBeforeTheCallbackItLeadsTo(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            for _ in 0..<10 {
                app.enabler.getAuthorization("news")
                await app.settle()
            }
            var events: [EntitlementEvent] = []
            var tokens = 0
            for await event in app.enabler.events(replay: true) {
                events.append(event)
                if case .callback(.setToken) = event.kind { tokens += 1 }
                if tokens == 10 { break }
            }
            // Each setToken follows the exchange that fetched its media token (deviceShortAuthorize; v2: the decision).
            var lastWasShortAuthorize = false
            for event in events {
                switch event.kind {
                case .httpExchange(let exchange):
                    lastWasShortAuthorize = exchange.url.hasSuffix("deviceShortAuthorize") || exchange.url.contains("/decisions/authorize/")
                case .callback(.setToken): #expect(lastWasShortAuthorize, "setToken #\(event.sequence) came before its exchange")
                default: break
                }
            }
        }
    }
}
