import AccessEnabler
import Foundation
import PassProtocol
import PassSimulator
import PassStorage
import Testing

/// Seed 002 "generic initial authentication workflow", steps 1–9, on iOS against a real backend, on both protocols
/// (REST API v2: a session's URL instead of the login URL, the profile instead of the stored token).
@Suite struct AuthenticationFlowTests {
    @Test(arguments: EntitlementProtocol.allCases) func firstLoginThroughPickerAndMVPDPage(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            // Step 4: no token, no cached MVPD → the picker with the requestor's MVPDs
            guard case .displayProviderDialog(let mvpds) = app.delegate.main.last else {
                Issue.record("expected displayProviderDialog, got \(app.delegate.names)")
                return
            }
            #expect(mvpds.map(\.ID) == ["Cablevision", "Spectrum", "Dish"])
            // Step 5–6: the choice → navigateToUrl with the backend's login URL
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            let url = try #require(app.delegate.lastURL)
            switch wire {
            case .sdk: #expect(url.contains("/authenticate/saml?") && url.contains("mso_id=Dish") && url.contains("device_id=device-1"))
            case .restV2: #expect(url.hasPrefix(fixture.baseURL + "/api/v2/authenticate/REF30/"))
            }
            // Step 7–9: the web view signs in and stops at adobepass://ios.app
            let end = try await app.webView.signIn(at: url, username: "carol", password: "carol123")
            #expect(end.hasPrefix("adobepass://ios.app"))
            app.enabler.handleExternalURL(end)
            await app.settle()
            #expect(app.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: ""))
            let tracking = try #require(app.delegate.tracking.last)
            #expect(tracking.0 == .authenticationDetection)
            #expect(tracking.1[0] == "YES" && tracking.1[1] == "Dish" && tracking.1[3] == "NO")
            switch wire {
            case .sdk:
                // The token is stored, bound to this device
                let stored = try #require(try app.configuration.storage.read())
                let storage = try JSONDecoder().decode(TokenStorage.self, from: stored)
                let token = try #require(storage.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken)
                #expect(try SignedToken<AuthNToken>.parse(token).body.matches(deviceID: "device-1"))
                #expect(storage.currentMvpd(requestor: "REF30") == "Dish")
            case .restV2:
                // No token on the device: the chosen MVPD and a copy of the profile; the team's storage untouched
                let kept = try #require(try app.v2State().requestors["REF30"])
                #expect(kept.currentMvpdID == "Dish" && kept.canAuthenticate)
                #expect(kept.profile?.mvpd == "Dish" && kept.profile?.attributes["userID"] != nil)
                #expect(try app.configuration.storage.read() == nil)
            }
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func validCachedTokenAnswersAtOnceAndSurvivesARestart(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let first = try fixture.app(wire: wire)
            await first.start(base: fixture.serviceProvider)
            try await first.login(mvpd: "Dish", username: "carol", password: "carol123")
            // A new process of the same app: same storage
            let again = try fixture.app(wire: wire)
            await again.start(base: fixture.serviceProvider)
            again.enabler.getAuthentication()
            again.enabler.checkAuthentication()
            await again.settle()
            #expect(again.delegate.main == [
                .setRequestorComplete(status: 1),
                .setAuthenticationStatus(status: 1, errorCode: ""),
                .setAuthenticationStatus(status: 1, errorCode: ""),
            ])
            #expect(again.delegate.tracking.first?.1[3] == "YES", "the token came from the cache")
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func cachedMvpdSkipsThePickerAfterExpiry(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            fixture.service.clock.advance(by: 604_801)  // Dish authN TTL
            app.delegate.clear()
            app.enabler.getAuthentication()
            await app.settle()
            #expect(app.delegate.names.contains("displayProviderDialog") == false)
            #expect(app.delegate.names.contains("navigateToUrl"))
            #expect(await app.enabler.snapshot().authentication == .awaitingLogin(mvpd: "Dish"))
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func setSelectedProviderBeforeGetAuthenticationSkipsThePicker(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.setSelectedProvider("Spectrum")
            app.enabler.getAuthentication()
            await app.settle()
            #expect(!app.delegate.names.contains("displayProviderDialog"))
            #expect(app.delegate.names.contains("navigateToUrl"))
            #expect(await app.enabler.snapshot().authentication == .awaitingLogin(mvpd: "Spectrum"))
            #expect(app.delegate.tracking.first?.0 == .mvpdSelection)
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func wrongPasswordKeepsTheUserOnTheForm(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            await #expect(throws: HeadlessWebView.Failure.self) {
                _ = try await app.webView.signIn(at: app.delegate.lastURL ?? "", username: "carol", password: "wrong")
            }
            let snapshot = await app.enabler.snapshot()
            #expect(snapshot.authentication == .awaitingLogin(mvpd: "Dish"))
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func cancelErasesOnlyThisProgrammersMvpd(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            // Given SPORTS1 signed in with Dish on the same device and team
            let sports = try fixture.app(bundleID: "com.example.sports.ios", wire: wire)
            await sports.start("SPORTS1", base: fixture.serviceProvider)
            try await sports.login(mvpd: "Dish", username: "carol", password: "carol123")
            let news = try fixture.app(wire: wire)
            await news.start(base: fixture.serviceProvider)
            news.enabler.setSelectedProvider("Cablevision")
            news.enabler.getAuthentication(forceAuthn: true)
            await news.settle()
            // When the user cancels on the login page
            let end = try await news.webView.cancelSignIn(at: try #require(news.delegate.lastURL))
            news.enabler.handleExternalURL(end)
            await news.settle()
            // Then status 0 "provider not selected", and SPORTS1's tokens are untouched
            #expect(news.delegate.main.last == .setAuthenticationStatus(status: 0, errorCode: ErrorCode.providerNotSelected.rawValue))
            switch wire {
            case .sdk:
                let storage = try JSONDecoder().decode(TokenStorage.self, from: try #require(try news.configuration.storage.read()))
                #expect(storage.bucket(requestor: "SPORTS1", mvpd: "Dish")?.authnToken != nil)
                #expect(storage.currentMvpd(requestor: "REF30") == nil)
            case .restV2:
                // Each app keeps its own state: SPORTS1's profile stays, REF30 remembers no MVPD
                #expect(try sports.v2State().requestors["SPORTS1"]?.profile?.mvpd == "Dish")
                #expect(try news.v2State().requestors["REF30"]?.currentMvpdID == nil)
                #expect(await sports.isAuthenticated())
            }
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func cancelAtThePicker(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            app.enabler.setSelectedProvider(nil)
            await app.settle()
            #expect(app.delegate.main.suffix(2) == [
                .displayProviderDialog(mvpds: app.delegate.main.compactMap { if case .displayProviderDialog(let m) = $0 { m } else { nil } }.first ?? []),
                .setAuthenticationStatus(status: 0, errorCode: ErrorCode.providerNotSelected.rawValue),
            ])
            #expect(app.delegate.statuses.contains { $0["errorId"] == "N005" })
            #expect(await app.enabler.snapshot().authentication == .idle)
        }
    }
}
