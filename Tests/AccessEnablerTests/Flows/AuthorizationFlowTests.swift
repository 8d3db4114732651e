import AccessEnabler
import Foundation
import PassBackend
import PassProtocol
import PassStorage
import PassTestSupport
import Testing

/// Seed 002 caching rules for authorization: one authZ token per resource, media tokens never cached; errors
/// distinguish authentication, authorization and network problems (cookbook). On REST API v2 (the same callbacks):
/// one decision per call, its permit carrying the media token; nothing stored but the profile copy.
@Suite struct AuthorizationFlowTests {
    func storage(_ app: TestApp) throws -> TokenStorage {
        try JSONDecoder().decode(TokenStorage.self, from: try #require(try app.configuration.storage.read()))
    }

    @Test(arguments: EntitlementProtocol.allCases) func getAuthorizationLogsInFirstThenDeliversAMediaToken(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            // When the app asks for a resource before signing in
            app.enabler.getAuthorization("sports")
            await app.settle()
            #expect(app.delegate.names.contains("displayProviderDialog"))
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            let end = try await app.webView.signIn(at: try #require(app.delegate.lastURL), username: "carol", password: "carol123")
            app.enabler.handleExternalURL(end)
            await app.settle()
            // Then authentication succeeds and the queued authorization runs by itself
            #expect(app.delegate.main.suffix(2).map(\.name) == ["setAuthenticationStatus", "setToken"])
            let token = try #require(app.delegate.lastToken)
            let client = TestHTTPClient(baseURL: fixture.baseURL)
            let verdict = try await client.post("/verify", form: [("token", token), ("resource", "sports")])
            #expect(verdict.status == 200, "\(verdict.text)")
            switch wire {
            case .sdk: #expect(try storage(app).bucket(requestor: "REF30", mvpd: "Dish")?.authzTokens["sports"] != nil)
            case .restV2:
                // No authorization token on the device: the profile copy only
                #expect(try app.configuration.storage.read() == nil)
                #expect(try app.v2State().requestors["REF30"]?.profile?.mvpd == "Dish")
            }
        }
    }

    @Test func mediaTokenIsFetchedEveryTimeButTheAuthZTokenIsReused() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app()
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            var exchanges: [String] = []
            let events = app.enabler.events()
            app.enabler.getAuthorization("news")
            app.enabler.getAuthorization("news")
            await app.settle()
            let tokens = app.delegate.callbacks.compactMap { if case .setToken(let token, _) = $0 { token } else { nil } }
            #expect(tokens.count == 2)
            #expect(tokens[0] != tokens[1], "a new media token each time")
            for await event in events {
                if case .httpExchange(let exchange) = event.kind { exchanges.append(URL(string: exchange.url)?.lastPathComponent ?? "") }
                if exchanges.count == 3 { break }
            }
            #expect(exchanges == ["authorizeDevice", "deviceShortAuthorize", "deviceShortAuthorize"])
            let authzTracking = app.delegate.tracking.filter { $0.0 == .authorizationDetection }
            #expect(authzTracking.map { $0.1[3] } == ["NO", "YES"], "second authorization used the cached authZ token")
            let stored = try storage(app)
            #expect(stored.bucket(requestor: "REF30", mvpd: "Dish")?.authzTokens.count == 1)
            #expect(!String(decoding: try #require(try app.configuration.storage.read()), as: UTF8.self).contains("shortAuthorizationToken"))
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func notEntitledIsAnAuthorizationErrorWithTheMVPDMessage(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "dave", password: "dave123")
            let events = app.enabler.events()
            app.enabler.getAuthorization("sports")
            await app.settle()
            // The refused exchange and the error name the MVPD, so a support filter `mvpd:Dish` finds them
            var named: [String: String?] = [:]
            for await event in events {
                switch event.kind {
                case .httpExchange(let exchange): named[URL(string: exchange.url)?.lastPathComponent ?? ""] = event.mvpdID
                case .error: named["error"] = event.mvpdID
                default: break
                }
                if named.count == 2 { break }
            }
            // (v2: the decision's path ends with the MVPD: /api/v2/REF30/decisions/authorize/Dish)
            #expect(named == [(wire == .sdk ? "authorizeDevice" : "Dish"): "Dish", "error": "Dish"])
            guard case .tokenRequestFailed(let resource, let code, let description) = app.delegate.main.last else {
                Issue.record("expected tokenRequestFailed: \(app.delegate.names)")
                return
            }
            #expect(resource == "sports")
            #expect(code == ErrorCode.USER_NOT_AUTHORIZED_ERROR)
            #expect(description?.contains("not authorized") == true)
            #expect(app.delegate.statuses.contains { $0["errorId"] == "Z100" })
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func checkAuthorizationWithoutLoginFailsAsNotAuthenticated(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.checkAuthorization("news")
            await app.settle()
            #expect(app.delegate.main.last == .tokenRequestFailed(resource: "news", errorCode: ErrorCode.USER_NOT_AUTHENTICATED_ERROR, errorDescription: ""))
            #expect(!app.delegate.names.contains("displayProviderDialog"))
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func revokedSessionIsAnAuthenticationErrorAndClearsTheTokens(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            fixture.service.revokeSessions(deviceID: "device-1")
            app.enabler.checkAuthorization("news")
            await app.settle()
            guard case .tokenRequestFailed(_, let code, _) = app.delegate.main.last else {
                Issue.record("expected tokenRequestFailed")
                return
            }
            #expect(code == ErrorCode.USER_NOT_AUTHENTICATED_ERROR)
            switch wire {
            case .sdk: #expect(try storage(app).bucket(requestor: "REF30", mvpd: "Dish")?.authnToken == nil)
            case .restV2: #expect(try app.v2State().requestors["REF30"]?.profile == nil, "the profile copy is dropped")
            }
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func backendDownIsANetworkErrorAndStorageIsUntouched(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            let before = try app.configuration.storage.read()
            let v2Before = try app.v2State()
            let path = wire == .sdk ? "/adobe-services/1.0/authorizeDevice" : "/api/v2/REF30/decisions/authorize/"
            fixture.service.faults.rules.append(FaultRule(path: path, status: 503, remaining: 1 + PassConstants.HTTP_RETRY_LIMIT))
            app.enabler.getAuthorization("news")
            await app.settle()
            guard case .tokenRequestFailed(_, let code, _) = app.delegate.main.last else {
                Issue.record("expected tokenRequestFailed")
                return
            }
            #expect(code == ErrorCode.internalAuthorization.rawValue)
            #expect(try app.configuration.storage.read() == before)
            #expect(try app.v2State() == v2Before)
        }
    }

    /// REST API v2's variant of the caching rule: no authorization token to reuse, one decision call per
    /// getAuthorization, each with its own media token; tracking's "cached" item is NO every time.
    @Test func onV2EachAuthorizationIsOneDecisionWithItsOwnMediaToken() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: .restV2)
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            let events = app.enabler.events()
            app.enabler.getAuthorization("news")
            app.enabler.getAuthorization("news")
            await app.settle()
            let tokens = app.delegate.callbacks.compactMap { if case .setToken(let token, _) = $0 { token } else { nil } }
            #expect(tokens.count == 2)
            #expect(tokens.allSatisfy { $0.hasPrefix("<signatureInfo>") }, "the decoded media token, as on the seeds' protocol")
            #expect(tokens[0] != tokens[1], "a new media token each time")
            var exchanges: [String] = []
            for await event in events {
                if case .httpExchange(let exchange) = event.kind { exchanges.append(URLComponents(string: exchange.url)?.path ?? "") }
                if exchanges.count == 2 { break }
            }
            #expect(exchanges == ["/api/v2/REF30/decisions/authorize/Dish", "/api/v2/REF30/decisions/authorize/Dish"])
            let authzTracking = app.delegate.tracking.filter { $0.0 == .authorizationDetection }
            #expect(authzTracking.map { $0.1[3] } == ["NO", "NO"])
            #expect(try app.configuration.storage.read() == nil)
        }
    }
}
