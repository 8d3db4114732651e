import Foundation
import Locking
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// The `/admin` fault knobs (Config/README.md): field conditions reproduced on purpose on the SDK path.
struct AdminFaultTests {
    static let configPath = "/adobe-services/1.0/config/REF30"

    @Test func latencyRuleDelaysOnlyTheMatchingEndpoint() async throws {
        try await BackendFixture.with { _, client async throws in
            try await AdminClient(client: client).addRule(FaultRule(path: "/adobe-services/1.0/config", latencyMs: TestTime.milliseconds(5000)))
            let clock = ContinuousClock()
            // The delayed request goes first; another endpoint asked meanwhile answers before it (an order, not a
            // time bound: a loaded full run once took 2.75 s for the quick request)
            let slowDone = Mutex(false)
            let slow = Task {
                let started = clock.now
                let answer = try await client.get(Self.configPath)
                slowDone.withLock { $0 = true }
                return (answer, clock.now - started)
            }
            try await Task.sleep(for: .milliseconds(100))
            let quick = try await client.get("/adobe-services/1.0/cookieDomains")
            #expect(quick.status == 200)
            #expect(!slowDone.withLock { $0 }, "the other endpoint waited for the injected latency")
            let (answer, took) = try await slow.value
            #expect(took >= .milliseconds(TestTime.milliseconds(5000)))
            #expect(answer.status == 200)
            #expect(try RequestorConfiguration.parse(xml: answer.text).requestorID == "REF30")
        }
    }

    @Test func forcedStatusAnswersAnSDKErrorDocumentForAsManyTimesAsAsked() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            try await AdminClient(client: client).addRule(
                FaultRule(path: "/adobe-services/1.0/authorizeDevice", method: "POST", status: 503, remaining: 2))
            for _ in 0..<2 {
                let failed = try await sdk.authorize(resource: "news", authn: authn)
                #expect(failed.status == 503)
                #expect(failed.header("Content-Type")?.hasPrefix("application/xml") == true)
                let details = try #require(SDKResponses.parseError(failed.text))
                #expect(details.contains("503"))
                #expect(details.contains("/adobe-services/1.0/authorizeDevice"))
            }
            #expect(try await sdk.authorize(resource: "news", authn: authn).status == 200)
        }
    }

    @Test func forcedStatusRuleForAnotherMethodDoesNotFire() async throws {
        try await BackendFixture.with { _, client async throws in
            try await AdminClient(client: client).addRule(FaultRule(path: "/adobe-services/1.0/config", method: "POST", status: 500))
            #expect(try await client.get(Self.configPath).status == 200)
        }
    }

    @Test func malformedRuleCutsTheBodySoTheParserFails() async throws {
        try await BackendFixture.with { _, client async throws in
            let whole = try await client.get(Self.configPath).text
            try await AdminClient(client: client).addRule(FaultRule(path: "/adobe-services/1.0/config", malformed: true))
            let cut = try await client.get(Self.configPath)
            #expect(cut.status == 200)
            #expect(cut.body.count == whole.utf8.count / 2)
            #expect(throws: (any Error).self) { try RequestorConfiguration.parse(xml: cut.text) }
        }
    }

    @Test func resettingFaultsRestoresTheConfiguredOnes() async throws {
        try await BackendFixture.with { service, client async throws in
            try await AdminClient(client: client).addRule(FaultRule(path: "*", status: 500))
            #expect(try await client.get(Self.configPath).status == 500)
            let cleared = try await client.post("/admin/faults/reset", json: Data("{}".utf8))
            #expect(cleared.status == 200)
            #expect(service.faults == service.configuration.faults)
            #expect(try await client.get(Self.configPath).status == 200)
        }
    }

    @Test func throttleAnswers429PerClientAddress() async throws {
        try await BackendFixture.with { _, client async throws in
            try await AdminClient(client: client).setFaults(
                FaultSettings(throttle: ThrottleSettings(requestsPerSecond: 0.01, burst: 3)))
            let me = ["X-Forwarded-For": "203.0.113.7"]
            for _ in 0..<3 { #expect(try await client.get(Self.configPath, headers: me).status == 200) }
            let refused = try await client.get(Self.configPath, headers: me)
            #expect(refused.status == 429)
            #expect(refused.header("Retry-After") == "1")
            #expect(refused.text.contains("Throttled"))
            // Another client is not affected, and the admin controls are never throttled.
            #expect(try await client.get(Self.configPath, headers: ["X-Forwarded-For": "203.0.113.8"]).status == 200)
            #expect(try await client.get("/admin/faults", headers: me).status == 200)
        }
    }

    @Test func denialRefusesOneResourceWithTheMVPDsMessage() async throws {
        try await BackendFixture.with { _, client async throws in
            let message = "0033: Movie Night is not part of your DISH package."
            try await AdminClient(client: client).setFaults(
                FaultSettings(denials: [Denial(mvpd: "Dish", resource: "movies", message: message)]))
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.carol)
            let denied = try await sdk.authorize(resource: "movies", authn: authn)
            #expect(denied.status == 403)
            #expect(denied.header("Authzf-Error-Code") == "user_not_authorized")
            #expect(SDKResponses.parseError(denied.text) == message)
            #expect(try await sdk.authorize(resource: "news", authn: authn).status == 200)
            // The denial names DISH: a Spectrum subscriber entitled to movies still gets them.
            let bob = try await sdk.signIn(Demo.bob, device: Demo.otherDevice)
            #expect(try await sdk.authorize(device: Demo.otherDevice, resource: "movies", authn: bob).status == 200)
        }
    }

    @Test func revokedSessionMakesSessionDeviceAnswerPendingLogout() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            _ = try await sdk.signIn(Demo.alice, device: Demo.otherDevice)
            let body = try JSONSerialization.data(withJSONObject: ["deviceId": Demo.device])
            let revoked = try await client.post("/admin/sessions/revoke", json: body)
            #expect(revoked.status == 200)
            #expect(revoked.json["revoked"] as? Int == 1)

            let session = try await sdk.sessionDevice(requestor: "REF30", device: Demo.device)
            #expect(session.status == 200)
            #expect(throws: SDKResponseError.pendingLogout) { try SDKResponses.parseAuthnToken(session.text) }
            let refused = try await sdk.authorize(resource: "news", authn: authn)
            #expect(refused.status == 401)
            #expect(refused.header("Authzf-Error-Code") == "session_revoked")
            // The other device is untouched.
            #expect(try await sdk.sessionDevice(requestor: "REF30", device: Demo.otherDevice).status == 200)
        }
    }

    @Test func mvpdTTLOverrideShortensTheTokensItIssues() async throws {
        try await BackendFixture.with { service, client async throws in
            try await AdminClient(client: client).setFaults(
                FaultSettings(mvpdOverrides: ["Cablevision": MVPDOverride(authnTTL: 60, authzTTL: 30)]))
            let sdk = SDKClient(client: client)
            let authn = try SignedToken<AuthNToken>.parse(try await sdk.signIn(Demo.alice))
            #expect(abs(authn.body.expires.timeIntervalSince(service.now()) - 60) < 5)
            let authz = try SignedToken<AuthZToken>.parse(
                try await sdk.authzToken(resource: "news", authn: authn.serialized))
            #expect(abs(authz.body.expires.timeIntervalSince(service.now()) - 30) < 5)
            service.clock.advance(by: 90)
            let expired = try await sdk.authorize(resource: "news", authn: authn.serialized)
            #expect(expired.header("Authzf-Error-Code") == "token_expired")
        }
    }

    @Test func clockOffsetMovesTheBackendsTimeAndExpiresTokens() async throws {
        try await BackendFixture.with { service, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            let offset = 86400 + 3600
            try await AdminClient(client: client).setFaults(FaultSettings(clockOffsetSeconds: offset))
            let clock = try await client.get("/admin/clock")
            let now = try #require(ISO8601DateFormatter().date(from: clock.json["now"] as? String ?? ""))
            #expect(abs(now.timeIntervalSinceNow - Double(offset)) < 10)
            #expect(Double(clock.json["offsetSeconds"] as? String ?? "") == Double(offset))
            let refused = try await sdk.authorize(resource: "news", authn: authn)
            #expect(refused.status == 401)
            #expect(refused.header("Authzf-Error-Code") == "token_expired")
            #expect(abs(service.now().timeIntervalSinceNow - Double(offset)) < 10)
        }
    }

    @Test func clockCanBeAdvancedThroughTheAdminAPI() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authz = try await sdk.authzToken(resource: "news", authn: try await sdk.signIn(Demo.alice))
            let moved = try await client.post("/admin/clock",
                json: try JSONSerialization.data(withJSONObject: ["advanceSeconds": 3700]))
            #expect(moved.status == 200)
            #expect(try await sdk.shortAuthorize(authz: authz).header("Authzf-Error-Code") == "token_expired")
        }
    }

    @Test func mvpdThatRefusesEmbeddedBrowsersAnswers403ToAWebView() async throws {
        try await BackendFixture.with { _, client async throws in
            try await AdminClient(client: client).setFaults(FaultSettings(refuseEmbeddedBrowsers: ["Spectrum"]))
            let start = try await client.get(
                "/adobe-services/1.0/authenticate/saml?requestor_id=REF30&mso_id=Spectrum&device_id=\(Demo.device)")
            let page = try #require(start.header("Location"))
            let webView = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
            let safari = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"

            let refused = try await client.get(page, headers: ["User-Agent": webView])
            #expect(refused.status == 403)
            #expect(refused.text.contains("Spectrum does not allow sign-in from an embedded browser"))
            let allowed = try await client.get(page, headers: ["User-Agent": safari])
            #expect(allowed.status == 200)
            #expect(allowed.text.contains("type=\"password\""), "the form, in Spectrum's field names")
            // Other MVPDs still accept the web view.
            let dish = try await client.get(
                "/adobe-services/1.0/authenticate/saml?requestor_id=REF30&mso_id=Dish&device_id=\(Demo.device)")
            let dishPage = try await client.get(try #require(dish.header("Location")), headers: ["User-Agent": webView])
            #expect(dishPage.status == 200)
        }
    }

    @Test func invalidFaultsJSONIsRefusedAndChangesNothing() async throws {
        try await BackendFixture.with { service, client async throws in
            let answer = try await client.send("PUT", "/admin/faults",
                headers: ["Content-Type": "application/json"], body: Data(#"{"rules": "all"}"#.utf8))
            #expect(answer.status == 400)
            #expect(answer.json["error"] as? String == "invalid_json")
            #expect(service.faults == FaultSettings())
        }
    }
}
