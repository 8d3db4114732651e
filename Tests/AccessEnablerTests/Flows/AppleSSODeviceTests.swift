import AccessEnabler
import Foundation
import PassProtocol
import PassSimulator
import Testing

/// Issue #17 B.1: Apple SSO follows the requestor's MVPDs, not the app's wiring. Every simulated device has the Apple
/// TV Provider (its ``TVProviderSetting``); apps are made exactly as the console's and `passconsole flow`'s are
/// (``AccessEnablerConfiguration/simulated(app:device:osVersion:serviceProvider:)``), with nothing about SSO wired
/// in. The callback orders are the German cookbook's flows D (iOS), E (tvOS) and I (logout), on both protocols
/// (REST API v2: partner single sign-on, and logout's partner_logout).
@Suite struct AppleSSODeviceTests {
    /// The callbacks an app sees, tracking left out; `status(ID)` for advanced statuses, error codes spelled out.
    static func steps(_ delegate: RecordingDelegate) -> [String] {
        delegate.callbacks.compactMap { callback in
            switch callback {
            case .sendTrackingData: nil
            case .status(let status): "status(\(status["errorId"] ?? "?"))"
            case .setAuthenticationStatus(let value, let code):
                "setAuthenticationStatus(\(value)" + (code.flatMap { $0.isEmpty ? nil : ", \($0)" } ?? "") + ")"
            default: callback.name
            }
        }
    }

    func phoneApp(
        _ fixture: SDKFixture, _ setting: TVProviderSetting, _ wire: EntitlementProtocol, bundleID: String = "com.example.news.ios",
        requestor: String = "REF30"
    ) throws -> TestApp {
        try setting.save(in: fixture.folder)
        return try fixture.simulatedApp(bundleID: bundleID, team: "TEAM1234", wire: wire, requestor: requestor)
    }

    @Test(arguments: EntitlementProtocol.allCases) func iOSPickAProviderSignsInWithoutALoginPageAndTheAppWiredNothing(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            // Given a phone whose user picks Spectrum in the Apple dialog, and News (REF30: Spectrum has Apple SSO)
            let app = try phoneApp(fixture, .pick(mvpdID: "Spectrum", username: "bob", password: "bob123"), wire)
            #expect(app.configuration.platformServices != nil, "the device provides the TV provider, not the app")
            await app.start(base: fixture.serviceProvider)
            // When the app calls getAuthentication
            app.enabler.getAuthentication()
            await app.settle()
            // Then flow D: the Apple dialog, then status 1, no picker and no login page
            #expect(Self.steps(app.delegate) == ["setRequestorComplete", "presentTvProviderDialog", "setAuthenticationStatus(1)"])
            #expect(await app.isAuthenticated())
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func iOSPickAProviderWithoutADeviceSignInOpensItsLoginPage(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            // Apple's picker-only boarding: the dialog names the provider, the MVPD's own page signs in
            let app = try phoneApp(fixture, .pick(mvpdID: "Spectrum"), wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(Self.steps(app.delegate) == ["setRequestorComplete", "presentTvProviderDialog", "navigateToUrl"])
            let url = try #require(app.delegate.lastURL)
            #expect(await app.enabler.snapshot().authentication == .awaitingLogin(mvpd: "Spectrum"))
            app.enabler.handleExternalURL(try await app.webView.signIn(at: url, username: "bob", password: "bob123"))
            await app.settle()
            #expect(Self.steps(app.delegate).last == "setAuthenticationStatus(1)")
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func otherTVProviderClosesTheDialogAndShowsTheSDKsPicker(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try phoneApp(fixture, .other, wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(Self.steps(app.delegate) == [
                "setRequestorComplete", "presentTvProviderDialog", "dismissTvProviderDialog", "status(N003)",
                "displayProviderDialog",
            ])
            // and the classic flow goes on from the SDK's picker
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            #expect(app.delegate.main.last?.name == "navigateToUrl")
            #expect(await app.enabler.snapshot().authentication == .awaitingLogin(mvpd: "Dish"))
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func cancelInTheAppleDialogCancelsAuthentication(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try phoneApp(fixture, .cancel, wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(Self.steps(app.delegate) == [
                "setRequestorComplete", "presentTvProviderDialog", "dismissTvProviderDialog",
                "setAuthenticationStatus(0, \(ErrorCode.PROVIDER_NOT_SELECTED_ERROR))", "status(N005)",
            ])
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func aDeviceSignedInToNoTVProviderFallsBackToTheSDKsPickerWithoutAStatus(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            // No tv-provider.json: the default of every simulated device
            let app = try fixture.simulatedApp(bundleID: "com.example.news.ios", team: "TEAM1234", wire: wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(Self.steps(app.delegate) == [
                "setRequestorComplete", "presentTvProviderDialog", "dismissTvProviderDialog", "displayProviderDialog",
            ])
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func aDeniedTVProviderPermissionSaysVSA403AndShowsTheSDKsPicker(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try phoneApp(fixture, .denied, wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(Self.steps(app.delegate) == [
                "setRequestorComplete", "presentTvProviderDialog", "dismissTvProviderDialog", "status(VSA403)",
                "displayProviderDialog",
            ])
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func aProgrammerWithoutAnSSOMvpdNeverShowsTheAppleDialog(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            // SPORTS1 integrates Cablevision and Dish, neither with Apple SSO
            let app = try phoneApp(fixture, .pick(mvpdID: "Spectrum", username: "bob", password: "bob123"), wire, requestor: "SPORTS1")
            await app.start("SPORTS1", base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(Self.steps(app.delegate) == ["setRequestorComplete", "displayProviderDialog"])
        }
    }

    /// Cookbook flow E up to the registration code: an Apple TV whose user picked Spectrum in the Apple dialog, News
    /// configured for REF30 and asked to sign in.
    static func startFlowE(_ fixture: SDKFixture, _ wire: EntitlementProtocol) async throws -> TestApp {
        try TVProviderSetting.pick(mvpdID: "Spectrum", username: "bob", password: "bob123").save(in: fixture.folder)
        let app = try fixture.simulatedApp(bundleID: "com.example.news.tv", team: "TEAM1234", platform: .tvOS, wire: wire) {
            $0.pollInterval = .milliseconds(100)
        }
        app.enabler.setRequestor(
            "REF30", serviceProviders: [fixture.serviceProvider], secret: SecondScreenTests.secret, publicKey: SecondScreenTests.publicKey)
        await app.settle()
        app.enabler.getAuthentication()
        await app.settle()
        return app
    }

    /// Waits (polling, up to 10 s) until the app was told it is signed in.
    static func waitForSignIn(_ app: TestApp) async throws {
        for _ in 0..<200 where !steps(app.delegate).contains("setAuthenticationStatus(1)") {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func tvOSPickAProviderShowsARegistrationCodeAndPollsUntilTheSecondScreenSignIn(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            // Given an Apple TV whose user picks Spectrum in the Apple dialog (flow E)
            let app = try await Self.startFlowE(fixture, wire)
            // Then the dialog, then status() with a registration code for Spectrum, and polling
            #expect(Self.steps(app.delegate) == ["setRequestorComplete", "presentTvProviderDialog", "status(REGCODE)"])
            let code = try #require(app.delegate.statuses.last?["code"])
            #expect(await app.enabler.snapshot().authentication == .polling(mvpd: "Spectrum", code: code))
            // When someone signs in with the code on a second screen
            let done = try await SecondScreenPerson(baseURL: fixture.baseURL).signIn(
                code: code, provider: "Spectrum", username: "bob", password: "bob123")
            #expect(done.title == "Signed in", "\(done.html)")
            // Then setAuthenticationStatus(1), and never a web view or the SDK's picker
            try await Self.waitForSignIn(app)
            #expect(Self.steps(app.delegate) == [
                "setRequestorComplete", "presentTvProviderDialog", "status(REGCODE)", "setAuthenticationStatus(1)",
            ])
        }
    }

    /// Issue #27 item 8 (cookbook flow I on tvOS): after flow E — the provider picked in the Apple TV's dialog, the
    /// sign-in made on a second screen — the sign-in was not marked as the platform's, so logout said no VSA203 and
    /// gave no "sign out in Settings too" hint.
    @Test(arguments: EntitlementProtocol.allCases) func tvOSLogoutAfterFlowESaysVSA203(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try await Self.startFlowE(fixture, wire)
            let code = try #require(app.delegate.statuses.last?["code"])
            _ = try await SecondScreenPerson(baseURL: fixture.baseURL).signIn(code: code, provider: "Spectrum", username: "bob", password: "bob123")
            try await Self.waitForSignIn(app)
            try #require(Self.steps(app.delegate).contains("setAuthenticationStatus(1)"))
            // (issue #27 item 11: tvOS tracking reports a device type of the seeds' list — an Apple TV is "unknown")
            let tracked = app.delegate.callbacks.compactMap { callback -> [String]? in
                if case .sendTrackingData(_, let data) = callback { data } else { nil }
            }
            #expect(!tracked.isEmpty && tracked.allSatisfy { $0.dropLast(2).last == "unknown" }, "\(tracked)")
            // When the user logs out in the app
            app.delegate.clear()
            app.enabler.logout()
            await app.settle()
            // Then flow I: VSA203 (sign out in Settings too), then status 0
            #expect(Self.steps(app.delegate) == ["status(VSA203)", "setAuthenticationStatus(0)"])
            #expect(app.delegate.statuses.first?["message"]?.contains("Settings") == true)
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func logoutAfterAppleSSOSaysVSA203AndTheNextLaunchSignsInAgain(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try phoneApp(fixture, .pick(mvpdID: "Spectrum", username: "bob", password: "bob123"), wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(await app.isAuthenticated())
            // When the user logs out in the app
            app.delegate.clear()
            app.enabler.logout()
            await app.settle()
            // Then flow I: status VSA203 first, then status 0; no web view (the sign-in is the platform's)
            #expect(Self.steps(app.delegate) == ["status(VSA203)", "setAuthenticationStatus(0)"])
            #expect(app.delegate.statuses.first?["message"]?.contains("Settings") == true)
            #expect(fixture.service.sessions.allSatisfy { $0.mvpdID != "Spectrum" }, "the server session ended")
            // And (field problem #19) the next launch signs in again from Settings → TV Provider
            let relaunched = try fixture.simulatedApp(bundleID: "com.example.news.ios", team: "TEAM1234", wire: wire)
            await relaunched.start(base: fixture.serviceProvider)
            #expect(await relaunched.isAuthenticated() == false)
            relaunched.enabler.getAuthentication()
            await relaunched.settle()
            #expect(Self.steps(relaunched.delegate).suffix(2) == ["presentTvProviderDialog", "setAuthenticationStatus(1)"])
        }
    }

    @Test func theSettingIsParsedAndRefusedInWords() throws {
        #expect(try TVProviderSetting(argument: "pick:Spectrum") == .pick(mvpdID: "Spectrum"))
        #expect(try TVProviderSetting(argument: "OTHER") == .other)
        #expect(try TVProviderSetting(argument: "none") == TVProviderSetting.none)
        #expect(throws: TVProviderSetting.ParseError.self) { try TVProviderSetting(argument: "pick:") }
        #expect(throws: TVProviderSetting.ParseError.self) { try TVProviderSetting(argument: "pick:../x") }
        #expect(throws: TVProviderSetting.ParseError.self) { try TVProviderSetting(argument: "maybe") }
    }
}
