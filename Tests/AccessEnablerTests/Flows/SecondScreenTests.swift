import AccessEnabler
import Foundation
import PassBackend
import PassProtocol
import PassSimulator
import PassStorage
import PassTestSupport
import Locking
import Testing

/// tvOS second screen (spec §7, seed 002) against a real backend: the registration code in `status`, polling,
/// sign-in on the activation page from another device, cancel and expiry. On REST API v2 too (design note §4): the
/// authentication session's code is the registration code, `profiles/code/{code}` the poll.
@Suite struct SecondScreenTests {
    static let secret = "demo-secret-change-me"
    static let publicKey = "demo-public-key"

    /// A tvOS app polling every 100 ms, configured for REF30 with the demo app's key pair.
    func tvApp(
        _ fixture: SDKFixture, bundleID: String = "com.example.news.tv", secret: String? = SecondScreenTests.secret,
        wire: EntitlementProtocol = .sdk, configure: @escaping (inout AccessEnablerConfiguration) -> Void = { _ in }
    ) async throws -> TestApp {
        let app = try fixture.app(bundleID: bundleID, platform: .tvOS, wire: wire, requestor: "REF30") { configuration in
            configuration.pollInterval = .milliseconds(100)
            configure(&configuration)
        }
        if let secret {
            app.enabler.setRequestor(
                "REF30", serviceProviders: [fixture.serviceProvider], secret: secret, publicKey: Self.publicKey)
        } else {
            app.enabler.setRequestor("REF30", serviceProviders: [fixture.serviceProvider])
        }
        await app.settle()
        #expect(app.delegate.main.first == .setRequestorComplete(status: 1))
        return app
    }

    /// getAuthentication → picker → Dish → the `REGCODE` status dictionary.
    func showCode(_ app: TestApp) async throws -> [String: String] {
        app.enabler.getAuthentication()
        await app.settle()
        if case .displayProviderDialog = app.delegate.main.last {
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
        }
        return try #require(
            app.delegate.statuses.last { $0["id"] == "REGCODE" }, "no REGCODE status in \(app.delegate.names)")
    }

    @Test(arguments: EntitlementProtocol.allCases) func signInOnTheActivationPageAuthenticatesTheTV(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            // Given a tvOS app showing the picker
            let app = try await tvApp(fixture, wire: wire)
            app.enabler.getAuthentication()
            await app.settle()
            guard case .displayProviderDialog(let mvpds) = app.delegate.main.last else {
                Issue.record("expected displayProviderDialog, got \(app.delegate.names)")
                return
            }
            #expect(mvpds.map(\.ID).contains("Dish"))
            // When the user picks Dish
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            // Then a registration code is shown through status (level Success), with no web view
            let status = try #require(app.delegate.statuses.last)
            #expect(status["id"] == "REGCODE" && status["errorId"] == "REGCODE" && status["level"] == "Success")
            let code = try #require(status["code"])
            #expect(code.count == 7 && code.allSatisfy { $0.isUppercase || $0.isNumber })
            #expect(status["regcode"] == code)
            #expect(status["activationURL"] == fixture.baseURL + "/activate")
            let expires = try #require(status["expires"].flatMap(EpochMilliseconds.date))
            // (issued at most a loaded minute ago: the TTL is 1800 s, not the 300 s of a media token)
            #expect(abs(expires.timeIntervalSince(fixture.service.now()) - 1800) < TestTime.seconds(60), "ttl = configuration.regcodeTTL")
            #expect(status["message"]?.contains(code) == true)
            // v2: also the URL a second screen signs in at with the code (the vendor's second screen builds it)
            #expect(status["url"] == (wire == .sdk ? nil : fixture.baseURL + "/api/v2/authenticate/REF30/" + code))
            #expect(!app.delegate.names.contains("navigateToUrl"))
            #expect(await app.enabler.snapshot().authentication == .polling(mvpd: "Dish", code: code))
            // When a person enters the code on a second screen and signs in with DISH
            let person = SecondScreenPerson(baseURL: fixture.baseURL)
            let done = try await person.signIn(code: code, provider: "DISH", username: "carol", password: "carol123")
            #expect(done.title == "Signed in", "\(done.html)")
            // Then polling picks the sign-in up: status 1 and the authentication tracking
            let authenticated = EntitlementCallback.setAuthenticationStatus(status: 1, errorCode: "")
            #expect(await app.wait(for: authenticated), "got \(app.delegate.names)")
            #expect(!app.delegate.names.contains("navigateToUrl"))
            let tracking = try #require(app.delegate.tracking.last)
            #expect(tracking.0 == .authenticationDetection && tracking.1[0] == "YES" && tracking.1[1] == "Dish")
            #expect(await app.enabler.snapshot().authentication == .idle)
            switch wire {
            case .sdk:
                // And the token is stored in the app's own storage, bound to this device
                app.enabler.waitForStorageWrites()
                let storage = try JSONDecoder().decode(
                    TokenStorage.self, from: try #require(try app.configuration.storage.read()))
                let token = try #require(storage.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken)
                #expect(try SignedToken<AuthNToken>.parse(token).body.matches(deviceID: "device-1"))
            case .restV2:
                // And the app keeps the chosen MVPD and a copy of the profile, no token
                #expect(try app.v2State().requestors["REF30"]?.profile?.mvpd == "Dish")
                #expect(try app.configuration.storage.read() == nil)
            }
            // And authorization works without another login
            app.enabler.getAuthorization("news")
            await app.settle()
            let media = try #require(app.delegate.lastToken, "got \(app.delegate.names)")
            let verdict = try await TestHTTPClient(baseURL: fixture.baseURL).post(
                "/verify", form: [("token", media), ("resource", "news")])
            #expect(verdict.status == 200, "\(verdict.text)")
            // And the same app after a restart is signed in, but another tvOS app on the device is not (no SSO)
            let restarted = try await tvApp(fixture, wire: wire)
            restarted.enabler.checkAuthentication()
            await restarted.settle()
            #expect(restarted.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: ""))
            let other = try await tvApp(fixture, bundleID: "com.example.sports.tv", wire: wire)
            other.enabler.checkAuthentication()
            await other.settle()
            #expect(
                other.delegate.main.last
                    == .setAuthenticationStatus(status: 0, errorCode: ErrorCode.userNotAuthenticated.rawValue))
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func getAuthorizationWaitsForTheSecondScreen(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try await tvApp(fixture, wire: wire)
            app.enabler.getAuthorization("sports")
            await app.settle()
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            let code = try #require(app.delegate.statuses.last?["code"])
            _ = try await SecondScreenPerson(baseURL: fixture.baseURL).signIn(
                code: code, provider: "DISH", username: "carol", password: "carol123")
            #expect(await app.wait { $0.contains { $0.name == "setToken" } }, "got \(app.delegate.names)")
            #expect(app.delegate.main.suffix(2).map(\.name) == ["setAuthenticationStatus", "setToken"])
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func cancelStopsPollingAndFreesTheCode(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            // Given a code on the TV, and a person who has reached DISH's login page with it
            let app = try await tvApp(fixture, wire: wire)
            let code = try #require(try await showCode(app)["code"])
            let person = SecondScreenPerson(baseURL: fixture.baseURL)
            let login = try await person.openLogin(code: code, provider: "DISH")
            #expect(try await RESTProbe(fixture).regcodeStatus(code) == 200)
            // When the app cancels
            app.enabler.setSelectedProvider(nil)
            await app.settle()
            #expect(
                app.delegate.main.last
                    == .setAuthenticationStatus(status: 0, errorCode: ErrorCode.providerNotSelected.rawValue))
            #expect(app.delegate.statuses.last?["id"] == "N005")
            #expect(await app.enabler.snapshot().authentication == .idle)
            switch wire {
            case .sdk:
                // Then the code is freed on the backend
                #expect(
                    await eventually { (try? await RESTProbe(fixture).regcodeStatus(code)) == 404 },
                    "the code was not deleted")
            case .restV2:
                // v2 has no call to free a code: it lives until its notAfter, and the SDK sends no DELETE
                #expect(try await RESTProbe(fixture).regcodeStatus(code) == 200)
            }
            // And a sign-in finished afterwards is not picked up, however long we wait
            app.delegate.clear()
            _ = try await person.finish(login, username: "carol", password: "carol123")
            try await Task.sleep(for: .milliseconds(600))
            await app.settle()
            #expect(!app.delegate.names.contains("setAuthenticationStatus"), "got \(app.delegate.names)")
            #expect(!app.delegate.statuses.contains { $0["id"] == "REGCODE" })
            switch wire {
            case .sdk:
                // (The sign-in did reach the device's session: a new attempt finds it at its first poll.)
                _ = try await showCode(app)
            case .restV2:
                // (The sign-in made a profile: a new attempt finds it at once, without a code.)
                app.enabler.getAuthentication()
                await app.settle()
                #expect(!app.delegate.statuses.contains { $0["id"] == "REGCODE" })
            }
            #expect(
                await app.wait(for: .setAuthenticationStatus(status: 1, errorCode: "")), "got \(app.delegate.names)")
        }
    }

    @Test func expiredCodeEndsTheFlowWithStatusZero() async throws {
        try await SDKFixture.with { fixture in
            // Given codes that live one second
            let app = try await tvApp(fixture) { $0.regcodeTTL = 1 }
            let status = try await showCode(app)
            let expires = try #require(status["expires"].flatMap(EpochMilliseconds.date))
            #expect(expires.timeIntervalSince(fixture.service.now()) <= 1.1)
            // When nobody signs in, then the code's expiry ends the flow
            let failed = EntitlementCallback.setAuthenticationStatus(
                status: 0, errorCode: ErrorCode.genericAuthentication.rawValue)
            #expect(await app.wait(for: failed), "got \(app.delegate.names)")
            #expect(fixture.service.now() >= expires)
            #expect(await app.enabler.snapshot().authentication == .idle)
            #expect(app.delegate.tracking.last?.1.first == "NO")
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func backendClockPastTheCodesExpiryEndsTheFlow(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try await tvApp(fixture, wire: wire)
            let code = try #require(try await showCode(app)["code"])
            let errors = Mutex<[String]>([])
            let events = app.enabler.events()
            let reader = Task {
                for await event in events {
                    if case .error(_, let message) = event.kind { errors.withLock { $0.append(message) } }
                }
            }
            defer { reader.cancel() }
            // When 30 minutes pass
            fixture.service.clock.advance(by: 1801)
            // Then the next poll ends the flow with a message that says why
            let failed = EntitlementCallback.setAuthenticationStatus(
                status: 0, errorCode: ErrorCode.genericAuthentication.rawValue)
            #expect(await app.wait(for: failed), "got \(app.delegate.names)")
            #expect(
                await eventually {
                    errors.withLock { $0.contains { $0.contains("registration code \(code) expired") } }
                },
                "\(errors.withLock { $0 })")
        }
    }

    /// REST API v2 sends no code lifetime (sessions have no such parameter): the code lives as long as the service
    /// says (`notAfter`); here the backend's codes live one second.
    @Test func onV2AnExpiredCodeEndsTheFlowWithStatusZero() async throws {
        var configuration = try BackendConfiguration.load(path: SDKFixture.configPath)
        configuration.tokens.regcodeTTL = 1
        try await SDKFixture.with(configuration: configuration) { fixture in
            let app = try await tvApp(fixture, wire: .restV2)
            let status = try await showCode(app)
            let expires = try #require(status["expires"].flatMap(EpochMilliseconds.date))
            #expect(expires.timeIntervalSince(fixture.service.now()) <= 1.1)
            let failed = EntitlementCallback.setAuthenticationStatus(
                status: 0, errorCode: ErrorCode.genericAuthentication.rawValue)
            #expect(await app.wait(for: failed), "got \(app.delegate.names)")
            #expect(fixture.service.now() >= expires)
            #expect(await app.enabler.snapshot().authentication == .idle)
            #expect(app.delegate.tracking.last?.1.first == "NO")
        }
    }

    @Test func anExpiredEarlierSignInDoesNotEndPolling() async throws {
        try await SDKFixture.with { fixture in
            // Given a TV signed in a week ago: its DISH authentication has expired on the backend (tokens/authn → 410)
            let app = try await tvApp(fixture)
            let first = try #require(try await showCode(app)["code"])
            _ = try await SecondScreenPerson(baseURL: fixture.baseURL).signIn(
                code: first, provider: "DISH", username: "carol", password: "carol123")
            #expect(await app.wait(for: .setAuthenticationStatus(status: 1, errorCode: "")))
            fixture.service.clock.advance(by: 604_801)
            // When the app authenticates again
            app.delegate.clear()
            let code = try #require(try await showCode(app)["code"])
            #expect(code != first)
            // Then polling goes on past the 410 answers until the person signs in again
            try await Task.sleep(for: .milliseconds(500))
            #expect(!app.delegate.names.contains("setAuthenticationStatus"), "got \(app.delegate.names)")
            #expect(await app.enabler.snapshot().authentication == .polling(mvpd: "Dish", code: code))
            _ = try await SecondScreenPerson(baseURL: fixture.baseURL).signIn(
                code: code, provider: "DISH", username: "carol", password: "carol123")
            #expect(
                await app.wait(for: .setAuthenticationStatus(status: 1, errorCode: "")), "got \(app.delegate.names)")
        }
    }

    @Test func missingCredentialsReportREG500() async throws {
        try await SDKFixture.with { fixture in
            let app = try await tvApp(fixture, secret: nil)
            app.enabler.getAuthentication()
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            let status = try #require(
                app.delegate.statuses.last { $0["id"] == "REG500" }, "got \(app.delegate.statuses)")
            #expect(status["level"] == "error")
            #expect(status["message"]?.contains("setRequestor needs secret and publicKey on tvOS") == true)
            #expect(
                app.delegate.main.last
                    == .setAuthenticationStatus(status: 0, errorCode: ErrorCode.genericAuthentication.rawValue))
            #expect(!app.delegate.names.contains("navigateToUrl"))
            #expect(await app.enabler.snapshot().authentication == .idle)
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func refusedRegistrationReportsREG500WithTheServersReason(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            // v1: a wrong secret signs the call; v2: the service refuses the session (a fault: 400)
            let app = try await tvApp(fixture, secret: wire == .sdk ? "not-the-secret" : Self.secret, wire: wire)
            if wire == .restV2 { fixture.service.faults.rules = [FaultRule(path: "/api/v2/REF30/sessions", method: "POST", status: 400, remaining: 1)] }
            app.enabler.getAuthentication()
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            let status = try #require(
                app.delegate.statuses.last { $0["id"] == "REG500" }, "got \(app.delegate.statuses)")
            switch wire {
            case .sdk:
                #expect(
                    status["message"]?.contains("HTTP 401") == true && status["message"]?.contains("signature") == true,
                    "\(status)")
            case .restV2: #expect(status["message"]?.contains("HTTP 400") == true, "\(status)")
            }
            #expect(
                app.delegate.main.last
                    == .setAuthenticationStatus(status: 0, errorCode: ErrorCode.genericAuthentication.rawValue))
        }
    }
}

// MARK: - Helpers

private extension TestApp {
    /// Waits until `condition` holds for the callbacks without tracking and status (``RecordingDelegate/main``),
    /// then settles so the callbacks that follow it (tracking) are delivered too. Polling runs in the background,
    /// so ``settle()`` alone does not wait for it.
    func wait(timeout: Duration = .seconds(10), until condition: ([EntitlementCallback]) -> Bool) async -> Bool {
        let met = await eventually(timeout: timeout) { condition(delegate.main) }
        await settle()
        return met
    }

    /// Waits until `callback` has been delivered.
    func wait(for callback: EntitlementCallback, timeout: Duration = .seconds(10)) async -> Bool {
        await wait(timeout: timeout) { $0.contains(callback) }
    }
}

/// Checks `condition` every 20 ms until it holds or `timeout` passes.
private func eventually(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}

/// A person with a phone: opens `/activate`, types the TV's code, picks the TV provider and signs in.
struct SecondScreenPerson {
    let baseURL: String
    let web = HeadlessWebView()

    struct Stuck: Error, CustomStringConvertible { var description: String }

    /// Enters the code and follows the provider's link to its login page.
    func openLogin(code: String, provider: String) async throws -> HeadlessWebView.Page {
        let form = try page(try await web.load(baseURL + "/activate"))
        let codeForm = try #require(form.forms.first, "no code form on \(form.url)")
        let providers = try page(try await web.submit(codeForm, fields: ["code": code]))
        let pattern = try Regex(#"<a class="provider" href="([^"]*)">\#(provider)</a>"#)
        guard let match = providers.html.firstMatch(of: pattern), let href = match.output[1].substring else {
            throw Stuck(
                description: "no link for \(provider) on \(providers.url): \(providers.alert ?? providers.html)")
        }
        let link = String(href).replacingOccurrences(of: "&amp;", with: "&")
        let target = try #require(URL(string: link, relativeTo: providers.url)?.absoluteString)
        return try page(try await web.load(target))
    }

    /// Signs in on the MVPD's login page; returns the page the chain ends on (`/activate/done`).
    func finish(_ login: HeadlessWebView.Page, username: String, password: String) async throws -> HeadlessWebView.Page
    {
        let form = try #require(login.forms.first { $0.hasPasswordField }, "no login form on \(login.url)")
        let button = form.buttons.first { $0.value != "cancel" }
        // Each MVPD names its fields its own way (`username`, `j_username`, `IDToken1`, `UserName`): a person types
        // into the text input and the password input, whatever they are called.
        let usernameField = form.textInputNames.first ?? "username"
        let passwordField = form.passwordInputNames.first ?? "password"
        return try page(
            try await web.submit(form, fields: [usernameField: username, passwordField: password], button: button))
    }

    func signIn(code: String, provider: String, username: String, password: String) async throws -> HeadlessWebView.Page
    {
        try await finish(try await openLogin(code: code, provider: provider), username: username, password: password)
    }

    private func page(_ outcome: HeadlessWebView.Outcome) throws -> HeadlessWebView.Page {
        guard case .page(let page) = outcome else { throw Stuck(description: "unexpected redirect: \(outcome)") }
        return page
    }
}

/// Signed REST v1 calls a test makes to look at the backend from outside, as the demo TV app would.
private struct RESTProbe {
    let fixture: SDKFixture

    init(_ fixture: SDKFixture) { self.fixture = fixture }

    /// `GET /reggie/v1/REF30/regcode/{code}`: 200 live, 404 unknown or deleted, 410 expired.
    func regcodeStatus(_ code: String) async throws -> Int {
        let path = "/reggie/v1/REF30/regcode/\(code)"
        let header = LegacyAuthorization.make(
            method: "GET", requestorID: "REF30", requestURI: path, publicKey: SecondScreenTests.publicKey,
            secret: SecondScreenTests.secret, nonce: UUID().uuidString,
            requestTime: EpochMilliseconds.from(fixture.service.now()))
        return try await TestHTTPClient(baseURL: fixture.baseURL).get(
            path + "?format=json", headers: ["Authorization": header]
        ).status
    }
}
