import AccessEnabler
import Foundation
import PassProtocol
import Synchronization
import Testing

@testable import PassStorage

/// The flows write storage behind them (the next round trip does not wait for the disk) while what the app is told
/// waits for it: a callback after a token was stored finds the token on disk.
@Suite struct StorageWriteBehindTests {
    /// Holds the first storage write before its rename until released, as a slow disk would.
    final class SlowDisk: Sendable {
        private let state = Mutex((writes: 0, held: false))
        private let release = DispatchSemaphore(value: 0)

        func hold(_ point: StorageFile.Hooks.Point) {
            guard point == .beforeRename else { return }
            let first = state.withLock { state in
                state.writes += 1
                if state.writes == 1 { state.held = true }
                return state.writes == 1
            }
            if first { release.wait() }
        }

        var holding: Bool { state.withLock { $0.held } }
        func letGo() {
            state.withLock { $0.held = false }
            release.signal()
        }
    }

    static func stored(_ app: TestApp) throws -> TokenStorage? {
        guard let data = try app.configuration.storage.read() else { return nil }
        return try JSONDecoder().decode(TokenStorage.self, from: data)
    }

    @Test func theNextRoundTripGoesOutWhileTheTokenIsWrittenAndTheCallbackWaitsForTheDisk() async throws {
        try await SDKFixture.with { fixture in
            let disk = SlowDisk()
            let app = try fixture.app { $0.storage.hooks.interrupt = { point, _ in disk.hold(point) } }
            let exchanges = Mutex<[String]>([])
            let events = app.enabler.events()
            let listening = Task {
                for await event in events {
                    if case .httpExchange(let exchange) = event.kind { exchanges.withLock { $0.append(exchange.url) } }
                }
            }
            defer { listening.cancel() }
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthorization("news")
            await app.settle()
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            let end = try await app.webView.signIn(at: try #require(app.delegate.lastURL), username: "carol", password: "carol123")
            app.enabler.handleExternalURL(end)

            // While the authN token's write is held, the authorization request has already been answered
            var authorized = false
            for _ in 0..<500 where !authorized {
                try await Task.sleep(for: .milliseconds(10))
                authorized = exchanges.withLock { $0.contains { $0.contains("/authorizeDevice") } }
            }
            #expect(authorized, "getAuthorization waited for the disk")
            #expect(disk.holding)
            // …but the app has not been told: setAuthenticationStatus(1) waits for the token to be on disk
            #expect(!app.delegate.callbacks.contains { $0.name == "setAuthenticationStatus" })
            #expect(try Self.stored(app)?.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken == nil)

            disk.letGo()
            await app.settle()
            #expect(app.delegate.main.map(\.name).suffix(2) == ["setAuthenticationStatus", "setToken"])
            let storage = try #require(try Self.stored(app))
            #expect(storage.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken != nil)
            #expect(storage.bucket(requestor: "REF30", mvpd: "Dish")?.authzTokens["news"] != nil)
        }
    }

    @Test func aSecondAppStartedAfterTheCallbackFindsTheSession() async throws {
        try await SDKFixture.with { fixture in
            let first = try fixture.app()
            await first.start(base: fixture.serviceProvider)
            try await first.login(mvpd: "Dish", username: "carol", password: "carol123")
            #expect(first.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: ""))
            // The same team's other app, started at once: the token is already in the shared storage
            let second = try fixture.app(bundleID: "com.example.other.ios")
            await second.start(base: fixture.serviceProvider)
            #expect(await second.isAuthenticated())
        }
    }
}
