import AccessEnabler
import Foundation
import PassProtocol
import PassStorage
import Testing

/// The seeds' storage and SSO scenarios replayed on REST API v2, with v2's expectations (docs/sdk.md, "The seeds'
/// rules on v2"): nothing is shared or imported through the device's storage, no passive authentication, no
/// sanitizer; each app signs in with its own registered client, and the service keeps the profile.
@Suite struct V2ScenarioTests {
    /// The seeds' importer scenario: an older SDK's token on the device. On v2 nothing is imported (FAQ
    /// `#migration-faq3`), the legacy storage is left as it is, and the user signs in.
    @Test func anOlderSDKsTokenIsNotImportedAndTheUserSignsIn() async throws {
        try await SDKFixture.with { fixture in
            // Given a token left by an older SDK version (made by a seeds'-protocol app on another device folder,
            // so the backend knows no legacy sign-in of this device)
            let legacyFile = try fixture.folder.legacy("storage-v2.json")
            var legacy = LegacyTokenStorage(version: .v2)
            legacy.canAuthenticate = true
            legacy.currentMvpdID = "Dish"
            legacy.globalAuthnToken = "<signatureInfo>older-token</signatureInfo>"
            try legacyFile.write(try JSONEncoder().encode(legacy))
            let before = try legacyFile.read()
            // When a v2 app starts
            let app = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1", wire: .restV2)
            await app.start("REF30", base: fixture.serviceProvider)
            #expect(app.delegate.main == [.setRequestorComplete(status: 1)])
            #expect(app.delegate.statuses.isEmpty, "no N001, no SEC412: \(app.delegate.statuses)")
            #expect(await app.isAuthenticated() == false)
            #expect(try legacyFile.read() == before)
            #expect(try app.configuration.importMarker?.read() == nil)
            // Then the user signs in
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            #expect(await app.isAuthenticated())
            #expect(try app.configuration.storage.read() == nil, "the team's storage is never written on v2")
        }
    }

    /// The seeds' passive-authentication scenario: SPORTS1 signed in at Cablevision (authentication per requestor),
    /// then REF30 starts. On v2: no passive authentication (no N001), REF30's app signs in itself.
    @Test func noPassiveAuthenticationEachAppSignsIn() async throws {
        try await SDKFixture.with { fixture in
            let sports = try fixture.simulatedApp(bundleID: "com.example.tv.sports", team: "TEAM1", wire: .restV2)
            await sports.start("SPORTS1", base: fixture.serviceProvider)
            try await sports.login(mvpd: "Cablevision", username: "alice", password: "alice123")
            let news = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1", wire: .restV2)
            await news.start("REF30", base: fixture.serviceProvider)
            #expect(!news.delegate.statuses.contains { $0["errorId"] == "N001" })
            #expect(news.delegate.main == [.setRequestorComplete(status: 1)])
            #expect(await news.isAuthenticated() == false)
            try await news.login(mvpd: "Cablevision", username: "alice", password: "alice123")
            #expect(await news.isAuthenticated())
            #expect(await sports.isAuthenticated())
        }
    }

    /// The SSO tech note's first row (same team, same bundle-ID prefix, one device ID): on v2 a profile is its
    /// registered client's, so the second app shows the picker and signs in itself.
    @Test func sameTeamSamePrefixEachAppSignsIn() async throws {
        try await SDKFixture.with { fixture in
            let news = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1", wire: .restV2)
            let sports = try fixture.simulatedApp(bundleID: "com.example.tv.sports", team: "TEAM1", wire: .restV2)
            #expect(news.configuration.deviceID == sports.configuration.deviceID)
            await news.start("REF30", base: fixture.serviceProvider)
            try await news.login(mvpd: "Dish", username: "carol", password: "carol123")
            await sports.start("SPORTS1", base: fixture.serviceProvider)
            sports.enabler.getAuthentication()
            await sports.settle()
            #expect(sports.delegate.main.last?.name == "displayProviderDialog")
            sports.enabler.setSelectedProvider(nil)
            await sports.settle()
            try await sports.login(mvpd: "Dish", username: "carol", password: "carol123")
            sports.delegate.clear()
            sports.enabler.getAuthorization("sports")
            await sports.settle()
            #expect(sports.delegate.main.map(\.name) == ["setToken"])
            #expect(await news.isAuthenticated(), "each app keeps its sign-in")
        }
    }

    /// The iOS 6 → 7 upgrade: the device ID changes. On v2 no sanitizer runs (no SEC412); the service no longer knows
    /// the old identifier's profile (FAQ `#authentication-phase-faq13`): the kept copy is dropped, the user signs in
    /// again, and the SDK says why in an error event.
    @Test func anUpgradeThatChangesTheDeviceIDSignsTheUserInAgainWithoutSEC412() async throws {
        try await SDKFixture.with { fixture in
            let before = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1", osVersion: "6.1.4", wire: .restV2)
            await before.start("REF30", base: fixture.serviceProvider)
            try await before.login(mvpd: "Dish", username: "carol", password: "carol123")
            #expect(await before.isAuthenticated())
            let after = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1", osVersion: "7.0", wire: .restV2)
            #expect(after.configuration.deviceID != before.configuration.deviceID)
            let events = after.enabler.events()
            await after.start("REF30", base: fixture.serviceProvider)
            #expect(!after.delegate.statuses.contains { $0["errorId"] == "SEC412" })
            var said: String?
            for await event in events {
                if case .error("device_identifier", let message) = event.kind { said = message }
                if case .callback(.setRequestorComplete) = event.kind { break }
            }
            #expect(said?.contains("device identifier changed") == true)
            let state = try after.v2State()
            #expect(state.deviceIdentifier == after.configuration.deviceID)
            #expect(state.requestors["REF30"]?.profile == nil, "the old identifier's profile copy is dropped")
            #expect(await after.isAuthenticated() == false)
            try await after.login(mvpd: "Dish", username: "carol", password: "carol123")
            #expect(await after.isAuthenticated())
        }
    }

    /// A relaunch: the credentials are kept (no second registration) and the service still has the profile.
    @Test func aRelaunchFindsTheProfileWithTheSameClient() async throws {
        try await SDKFixture.with { fixture in
            let first = try fixture.simulatedApp(bundleID: "com.example.news.ios", team: "TEAM1", wire: .restV2)
            await first.start("REF30", base: fixture.serviceProvider)
            try await first.login(mvpd: "Dish", username: "carol", password: "carol123")
            first.enabler.getAuthorization("news")
            await first.settle()
            let registered = try first.v2State().clients
            let relaunched = try fixture.simulatedApp(bundleID: "com.example.news.ios", team: "TEAM1", wire: .restV2)
            let events = relaunched.enabler.events()
            await relaunched.start("REF30", base: fixture.serviceProvider)
            #expect(await relaunched.isAuthenticated())
            var paths: [String] = []
            for await event in events {
                if case .httpExchange(let exchange) = event.kind { paths.append(URLComponents(string: exchange.url)?.path ?? "") }
                if case .callback(.setAuthenticationStatus) = event.kind { break }
            }
            #expect(paths == ["/api/v2/REF30/configuration", "/api/v2/REF30/profiles/Dish"])
            #expect(try relaunched.v2State().clients == registered)
            // The file holds the credentials, the access token and the profile copy: no authentication,
            // authorization or media token
            let text = String(decoding: try #require(try relaunched.configuration.registrationStorage?.read()), as: UTF8.self)
            #expect(!text.contains("signatureInfo") && !text.contains("PHNpZ25hdHVyZUluZm8") && !text.contains("serializedToken"))
            #expect(text.contains("clientSecret") && text.contains("accessToken") && text.contains("\"profile\""))
        }
    }
}
