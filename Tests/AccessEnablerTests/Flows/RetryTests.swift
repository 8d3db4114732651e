import AccessEnabler
import Foundation
import PassBackend
import PassProtocol
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #17 B.6: the seeds' `HTTP_RETRY_LIMIT` (spec §3.6, "one retry per call") is what the SDK's network layer
/// uses. A real backend fails the first N answers (fault injection, `remaining: N`); the rule's counter left over
/// says how many times the SDK asked.
@Suite struct RetryTests {
    static let limit = PassConstants.HTTP_RETRY_LIMIT
    static let authorizeDevice = "/adobe-services/1.0/authorizeDevice"

    /// The fault rule's remaining count for `path` after the calls.
    func remaining(_ fixture: SDKFixture, _ path: String) -> Int? {
        fixture.service.faults.rules.first { $0.path == path }?.remaining
    }

    func signedIn(_ fixture: SDKFixture, _ wire: EntitlementProtocol) async throws -> TestApp {
        let app = try fixture.app(wire: wire)
        await app.start(base: fixture.serviceProvider)
        try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
        app.delegate.clear()
        return app
    }

    func tokenRequestFailed(_ app: TestApp) -> (code: String, description: String?)? {
        for case .tokenRequestFailed(_, let code, let description) in app.delegate.main.reversed() { return (code, description) }
        return nil
    }

    @Test func theLimitIsTheSeedsConstant() {
        #expect(RetryPolicy().limit == PassConstants.HTTP_RETRY_LIMIT)
        #expect(AccessEnablerConfiguration(
            app: AppIdentity(bundleID: "a.b", teamID: "T"), deviceID: "d", storage: .init(url: URL(fileURLWithPath: "/tmp/x")),
            storageDomain: "d", defaultServiceProvider: URL(string: "http://127.0.0.1")!).retry.limit == PassConstants.HTTP_RETRY_LIMIT)
    }

    @Test(arguments: EntitlementProtocol.allCases)
    func aServiceFailingAsManyTimesAsTheLimitAllowsIsRetriedAndTheAuthorizationSucceeds(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try await signedIn(fixture, wire)
            let authorizeDevice = SDKFixture.authorizePath(wire)
            fixture.service.faults.rules = [FaultRule(path: authorizeDevice, status: 503, remaining: Self.limit)]
            app.enabler.getAuthorization("news")
            await app.settle()
            #expect(app.delegate.main.contains { if case .setToken(_, "news") = $0 { true } else { false } }, "\(app.delegate.main)")
            #expect(tokenRequestFailed(app) == nil)
            #expect(remaining(fixture, authorizeDevice) == 0, "every failing answer was met")
        }
    }

    @Test(arguments: [502, 503, 504], EntitlementProtocol.allCases)
    func aServiceFailingLongerIsAskedOnePlusTheLimitTimesThenTheErrorCallbackComes(status: Int, _ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try await signedIn(fixture, wire)
            let failing = Self.limit + 3
            let authorizeDevice = SDKFixture.authorizePath(wire)
            fixture.service.faults.rules = [FaultRule(path: authorizeDevice, status: status, remaining: failing)]
            app.enabler.getAuthorization("news")
            await app.settle()
            // Asked 1 + HTTP_RETRY_LIMIT times, no more
            #expect(remaining(fixture, authorizeDevice) == failing - (1 + Self.limit))
            let failed = try #require(tokenRequestFailed(app), "\(app.delegate.main)")
            #expect(failed.code == ErrorCode.internalAuthorization.rawValue)
            #expect(failed.description?.contains("HTTP \(status)") == true)
            // A service error is not a sign-out: the sign-in is kept
            #expect(await app.isAuthenticated())
        }
    }

    @Test(arguments: [500, 429, 401, 403], EntitlementProtocol.allCases)
    func answersARetryCannotCureAreNotRetried(status: Int, _ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try await signedIn(fixture, wire)
            let authorizeDevice = SDKFixture.authorizePath(wire)
            fixture.service.faults.rules = [FaultRule(path: authorizeDevice, status: status, remaining: 5)]
            app.enabler.getAuthorization("news")
            await app.settle()
            // REST API v2: a 401 is sent once more, with a new access token (the vendor's checklist)
            let asked = wire == .restV2 && status == 401 ? 2 : 1
            #expect(remaining(fixture, authorizeDevice) == 5 - asked)
            #expect(tokenRequestFailed(app) != nil)
        }
    }

    @Test(arguments: EntitlementProtocol.allCases)
    func theConfigurationCallIsRetriedToo(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let config = wire == .sdk ? "/adobe-services/1.0/config/REF30" : "/api/v2/REF30/configuration"
            // Failing once: the retry gets the configuration
            fixture.service.faults.rules = [FaultRule(path: config, status: 503, remaining: Self.limit)]
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            #expect(app.delegate.main.contains(.setRequestorComplete(status: PassConstants.ACCESS_ENABLER_STATUS_SUCCESS)))
            #expect(remaining(fixture, config) == 0)
            // Failing longer: setRequestor fails after 1 + HTTP_RETRY_LIMIT tries, with the CFG5xx status
            fixture.service.faults.rules = [FaultRule(path: config, status: 503, remaining: 10)]
            let second = try fixture.app(bundleID: "com.example.news.other", wire: wire)
            await second.start(base: fixture.serviceProvider)
            #expect(second.delegate.main.contains(.setRequestorComplete(status: PassConstants.ACCESS_ENABLER_STATUS_ERROR)))
            #expect(second.delegate.statuses.contains { $0["errorId"] == AdvancedStatusCode.CFG5xx.rawValue })
            #expect(remaining(fixture, config) == 10 - (1 + Self.limit))
        }
    }

    @Test func aLostConnectionIsRetriedButATimeoutIsNot() {
        let policy = RetryPolicy()
        let refused = URLError(.cannotConnectToHost)
        let lost = URLError(.networkConnectionLost)
        #expect(policy.shouldRetry(error: refused, attempt: 1))
        #expect(policy.shouldRetry(error: lost, attempt: 1))
        #expect(!policy.shouldRetry(error: refused, attempt: 1 + Self.limit), "the limit is spent")
        #expect(!policy.shouldRetry(error: URLError(.timedOut), attempt: 1))
        #expect(!policy.shouldRetry(error: URLError(.cancelled), attempt: 1))
        #expect(RetryPolicy(limit: 0).shouldRetry(status: 503, attempt: 1) == false)
    }

    @Test(arguments: EntitlementProtocol.allCases)
    func aServiceProviderThatRefusesConnectionsIsTriedOnePlusTheLimitTimes(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            // Nothing listens on port 1: every try is "connection refused", which a retry may cure
            app.enabler.setRequestor("REF30", serviceProviders: [URL(string: "http://127.0.0.1:1/adobe-services")!])
            await app.settle()
            #expect(app.delegate.main.contains(.setRequestorComplete(status: PassConstants.ACCESS_ENABLER_STATUS_ERROR)))
            #expect(app.delegate.statuses.contains { $0["errorId"] == AdvancedStatusCode.CFG404.rawValue })
            // Each try is recorded as an exchange that got no answer
            var tries: [HTTPExchange] = []
            for await event in app.enabler.events(replay: true) {
                // (REST API v2: the first call is the app's registration)
                if case .httpExchange(let exchange) = event.kind, exchange.url.contains(wire == .sdk ? "/config/REF30" : "/o/client/register") {
                    tries.append(exchange)
                }
                if case .callback(.setRequestorComplete) = event.kind { break }
            }
            #expect(tries.count == 1 + Self.limit, "\(tries)")
            #expect(tries.allSatisfy { $0.status == nil && $0.failure != nil })
        }
    }

    /// The tvOS app's Clientless calls (signed with the legacy HMAC header, signed anew for the retry) are retried too.
    @Test func theRegistrationCodeCallOfATVAppIsRetried() async throws {
        try await SDKFixture.with { fixture in
            let path = "/reggie/v1/REF30/regcode"
            fixture.service.faults.rules = [FaultRule(path: path, method: "POST", status: 503, remaining: Self.limit)]
            let app = try fixture.app(bundleID: "com.example.news.tv", platform: .tvOS)
            app.enabler.setRequestor(
                "REF30", serviceProviders: [fixture.serviceProvider], secret: "demo-secret-change-me", publicKey: "demo-public-key")
            await app.settle()
            app.enabler.getAuthentication()
            await app.settle()
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            #expect(app.delegate.statuses.contains { $0["id"] == "REGCODE" }, "\(app.delegate.statuses)")
            #expect(remaining(fixture, path) == 0)
            app.enabler.setSelectedProvider(nil)
            await app.settle()
        }
    }

    /// REST API v2: a `401` answer (the access token expired or was revoked on the service) gets a new access token
    /// with the kept credentials, and the call is sent once more; the app hears only the result.
    @Test func onV2ARefusedAccessTokenIsRenewedAndTheCallSentOnceMore() async throws {
        try await SDKFixture.with { fixture in
            let app = try await signedIn(fixture, .restV2)
            let path = SDKFixture.authorizePath(.restV2)
            fixture.service.faults.rules = [FaultRule(path: path, status: 401, remaining: 1)]
            let events = app.enabler.events()
            app.enabler.getAuthorization("news")
            await app.settle()
            #expect(app.delegate.main.map(\.name) == ["setToken"])
            #expect(remaining(fixture, path) == 0)
            var paths: [String] = []
            for await event in events {
                if case .httpExchange(let exchange) = event.kind { paths.append(URLComponents(string: exchange.url)?.path ?? "") }
                if paths.count == 3 { break }
            }
            #expect(paths == [path + "Dish", "/o/client/token", path + "Dish"])
        }
    }
}
