import AccessEnabler
import Foundation
import PassBackend
import PassTestSupport
import Testing

/// setRequestor with several service providers (spec §1.3): configurations fetched in parallel, MVPD lists merged,
/// each MVPD's calls sent to the provider that offered it. On REST API v2 too: one registration per service.
@Suite struct ServiceProvidersTests {
    /// Two backends whose REF30 offers different MVPDs: A has Cablevision and Spectrum, B has Dish.
    static func withTwoProviders(_ body: (SDKFixture, URL, URL) async throws -> Void) async throws {
        func service(offering mvpds: [String]) throws -> BackendService {
            var configuration = try BackendConfiguration.load(path: SDKFixture.configPath)
            for index in configuration.programmers.indices where configuration.programmers[index].id == "REF30" {
                configuration.programmers[index].mvpds = mvpds
            }
            return BackendService(configuration: configuration, logger: TestServer.logger)
        }
        let (serviceA, serviceB) = (try service(offering: ["Cablevision", "Spectrum"]), try service(offering: ["Dish"]))
        try await SDKFixture.with { fixture in
            try await TestServer.with(PassBackend(service: serviceA)) { serverA, _ async throws in
                try await TestServer.with(PassBackend(service: serviceB)) { serverB, _ async throws in
                    try await body(fixture, URL(string: serverA.baseURL + "/adobe-services")!,
                        URL(string: serverB.baseURL + "/adobe-services")!)
                }
            }
        }
    }

    /// setRequestor with `providers` (expected to complete), then getAuthentication: the IDs of the picker's MVPDs, or
    /// nil (recorded).
    static func picker(_ app: TestApp, providers: [URL]) async -> [String]? {
        app.enabler.setRequestor("REF30", serviceProviders: providers)
        await app.settle()
        #expect(app.delegate.main.first == .setRequestorComplete(status: 1))
        app.enabler.getAuthentication()
        await app.settle()
        guard case .displayProviderDialog(let mvpds) = app.delegate.main.last else {
            Issue.record("expected the picker, got \(app.delegate.names)")
            return nil
        }
        return mvpds.map(\.ID)
    }

    @Test(arguments: EntitlementProtocol.allCases) func thePickerMergesBothListsAndEachMVPDLogsInAtItsOwnProvider(_ wire: EntitlementProtocol) async throws {
        try await Self.withTwoProviders { fixture, a, b in
            let app = try fixture.app(wire: wire)
            guard let mvpds = await Self.picker(app, providers: [a, b]) else { return }
            #expect(Set(mvpds) == ["Cablevision", "Spectrum", "Dish"])
            // Dish came from B: its login page, token and authorization all go to B
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            let url = try #require(app.delegate.lastURL)
            // (REST API v2: B's session URL, /api/v2/authenticate/REF30/{code} at B's origin)
            #expect(url.hasPrefix(wire == .sdk ? b.absoluteString : b.absoluteString.replacingOccurrences(of: "/adobe-services", with: "/api/v2/")))
            let end = try await app.webView.signIn(at: url, username: "carol", password: "carol123")
            app.enabler.handleExternalURL(end)
            await app.settle()
            #expect(app.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: ""))
            app.enabler.getAuthorization("news")
            await app.settle()
            #expect(app.delegate.lastToken != nil)
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func aProviderThatDoesNotAnswerLeavesTheOthersMVPDs(_ wire: EntitlementProtocol) async throws {
        try await Self.withTwoProviders { fixture, a, _ in
            let app = try fixture.app(wire: wire)
            let dead = URL(string: "http://127.0.0.1:9/adobe-services")!
            guard let mvpds = await Self.picker(app, providers: [dead, a]) else { return }
            #expect(mvpds == ["Cablevision", "Spectrum"])
            // When none answers, setRequestor fails
            let other = try fixture.app(bundleID: "com.example.other.ios", team: "TEAM2", deviceID: "device-2", wire: wire)
            other.enabler.setRequestor("REF30", serviceProviders: [dead, URL(string: "http://127.0.0.1:7/adobe-services")!])
            await other.settle()
            #expect(other.delegate.main.first == .setRequestorComplete(status: 0))
        }
    }
}
