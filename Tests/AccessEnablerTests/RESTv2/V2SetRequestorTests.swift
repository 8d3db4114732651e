import AccessEnabler
import Foundation
import PassProtocol
import Testing

/// setRequestor on REST API v2 (design note §8.1): the app registers once per install, the configuration comes from
/// `/api/v2/{requestor}/configuration`, and a refused registration is `R400` (`R401` without an access token).
@Suite struct V2SetRequestorTests {
    /// The paths of the exchanges an app made, in order.
    static func paths(_ events: [EntitlementEvent]) -> [String] {
        events.compactMap { if case .httpExchange(let exchange) = $0.kind { URLComponents(string: exchange.url)?.path } else { nil } }
    }

    static func collect(_ app: TestApp, _ body: () async throws -> Void) async rethrows -> [EntitlementEvent] {
        let events = app.enabler.events()
        try await body()
        await app.settle()
        var collected: [EntitlementEvent] = []
        let reader = Task {
            var list: [EntitlementEvent] = []
            for await event in events {
                list.append(event)
                if case .callback(.setRequestorComplete) = event.kind { break }
            }
            return list
        }
        collected = await reader.value
        return collected
    }

    @Test func registersOncePerInstallAndARelaunchReusesTheCredentials() async throws {
        try await SDKFixture.with { fixture in
            let first = try fixture.app(wire: .restV2)
            let heard = await Self.collect(first) { await first.start(base: fixture.serviceProvider) }
            #expect(first.delegate.main == [.setRequestorComplete(status: 1)])
            #expect(Self.paths(heard) == ["/o/client/register", "/o/client/token", "/api/v2/REF30/configuration"])
            // The picker lists the v2 configuration's MVPDs (no TempPass)
            first.enabler.getAuthentication()
            await first.settle()
            guard case .displayProviderDialog(let mvpds)? = first.delegate.main.last else {
                Issue.record("expected the picker, got \(first.delegate.names)")
                return
            }
            #expect(mvpds.map(\.ID) == ["Cablevision", "Spectrum", "Dish"])
            let state = try first.v2State()
            #expect(state.clients.count == 1 && state.deviceIdentifier == "device-1")
            // The app again (a relaunch): the kept credentials and access token, no registration
            let again = try fixture.app(wire: .restV2)
            let heardAgain = await Self.collect(again) { await again.start(base: fixture.serviceProvider) }
            #expect(Self.paths(heardAgain) == ["/api/v2/REF30/configuration"])
            #expect(try again.v2State().clients == state.clients)
        }
    }

    @Test func aRevokedSoftwareStatementIsR400AtTheNextSetRequestor() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: .restV2)
            await app.start(base: fixture.serviceProvider)
            #expect(app.delegate.main == [.setRequestorComplete(status: 1)])
            #expect(try await fixture.admin("/admin/statements/revoke", json: #"{"softwareStatement":"demo-software-statement"}"#) < 300)
            app.delegate.clear()
            await app.start(base: fixture.serviceProvider)
            #expect(app.delegate.main == [.setRequestorComplete(status: 0)])
            #expect(app.delegate.statuses.map { $0["errorId"] } == ["R400"])
        }
    }

    @Test func withoutASoftwareStatementSetRequestorFailsWithR400AndSendsNothing() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: .restV2) { $0.softwareStatement = nil }
            let heard = await Self.collect(app) { await app.start(base: fixture.serviceProvider) }
            #expect(app.delegate.main == [.setRequestorComplete(status: 0)])
            #expect(app.delegate.statuses.map { $0["errorId"] } == ["R400"])
            #expect(Self.paths(heard).isEmpty)
        }
    }

    @Test func anotherProgrammersStatementIsR400() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: .restV2, requestor: "SPORTS1")
            await app.start("REF30", base: fixture.serviceProvider)
            #expect(app.delegate.main == [.setRequestorComplete(status: 0)])
            #expect(app.delegate.statuses.map { $0["errorId"] } == ["R400"])
        }
    }

    @Test func theTeamsStorageIsNeverWrittenOnV2() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: .restV2)
            await app.start(base: fixture.serviceProvider)
            app.enabler.checkAuthentication()
            await app.settle()
            #expect(try app.configuration.storage.read() == nil)
        }
    }
}
