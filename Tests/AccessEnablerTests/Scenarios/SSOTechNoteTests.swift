import AccessEnabler
import Foundation
import PassProtocol
import Testing

/// The SSO tech note (seed 003): two apps on one iOS device; what the user sees depends on whether the apps share a
/// team (shared storage) and a bundle-ID prefix (same vendor ID, so the same device ID).
@Suite struct SSOTechNoteTests {
    @Test func sameTeamSamePrefixSignsInOnce() async throws {
        try await SDKFixture.with { fixture in
            let news = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1")
            let sports = try fixture.simulatedApp(bundleID: "com.example.tv.sports", team: "TEAM1")
            #expect(news.configuration.deviceID == sports.configuration.deviceID)
            await news.start("REF30", base: fixture.serviceProvider)
            try await news.login(mvpd: "Dish", username: "carol", password: "carol123")
            // The second app is signed in without a login page
            await sports.start("SPORTS1", base: fixture.serviceProvider)
            sports.enabler.getAuthentication()
            await sports.settle()
            #expect(!sports.delegate.names.contains("displayProviderDialog"))
            #expect(sports.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: ""))
            // And the backend honours the copied DISH token: issue #17 B.0, where SPORTS1's authorization failed
            // with "The token was issued to Programmer REF30, not to SPORTS1"
            sports.delegate.clear()
            sports.enabler.getAuthorization("sports")
            await sports.settle()
            #expect(sports.delegate.main.contains { if case .setToken(_, "sports") = $0 { true } else { false } }, "\(sports.delegate.main)")
            #expect(!sports.delegate.names.contains("tokenRequestFailed"))
        }
    }

    /// AccessEnabler 1.8 and later (the default): the tech note's 1.8 note, each app wipes the other's sign-in.
    @Test func sameTeamOtherPrefixSharesStorageButEachAppAuthenticatesAndWipesTheOther() async throws {
        try await SDKFixture.with { fixture in
            let news = try fixture.simulatedApp(bundleID: "com.example.news.app", team: "TEAM1")
            let sports = try fixture.simulatedApp(bundleID: "com.other.sports.app", team: "TEAM1")
            #expect(news.configuration.deviceID != sports.configuration.deviceID)
            #expect(news.configuration.storage == sports.configuration.storage)
            await news.start("REF30", base: fixture.serviceProvider)
            try await news.login(mvpd: "Dish", username: "carol", password: "carol123")
            // The other app sees the token in the shared storage but it is bound to another device ID: the
            // sanitizer (1.7.5+) removes it and reports SEC412
            await sports.start("SPORTS1", base: fixture.serviceProvider)
            #expect(sports.delegate.statuses.contains { $0["errorId"] == "SEC412" })
            #expect(await sports.isAuthenticated() == false)
            try await sports.login(mvpd: "Dish", username: "carol", password: "carol123")
            #expect(await sports.isAuthenticated())
            // Back in the first app: its token was wiped, the user must sign in again (the 1.8 behaviour)
            await news.start("REF30", base: fixture.serviceProvider)
            #expect(await news.isAuthenticated() == false)
        }
    }

    @Test func otherTeamsAreIsolatedAndEachSessionIsKept() async throws {
        try await SDKFixture.with { fixture in
            for sportsBundle in ["com.example.tv.sports", "org.acme.sports.ios"] {
                let news = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1")
                let sports = try fixture.simulatedApp(bundleID: sportsBundle, team: "TEAM2-\(sportsBundle.count)")
                #expect(news.configuration.storage != sports.configuration.storage)
                await news.start("REF30", base: fixture.serviceProvider)
                if await news.isAuthenticated() == false {
                    try await news.login(mvpd: "Dish", username: "carol", password: "carol123")
                }
                await sports.start("SPORTS1", base: fixture.serviceProvider)
                #expect(await sports.isAuthenticated() == false, "no shared storage across teams")
                try await sports.login(mvpd: "Dish", username: "carol", password: "carol123")
                // Each app keeps its own session
                await news.start("REF30", base: fixture.serviceProvider)
                #expect(await news.isAuthenticated())
                #expect(await sports.isAuthenticated())
            }
        }
    }

    @Test func upgradeFromIOS6To7ChangesTheDeviceIDAndTheSanitizerClearsOldTokens() async throws {
        try await SDKFixture.with { fixture in
            let before = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1", osVersion: "6.1.4")
            await before.start("REF30", base: fixture.serviceProvider)
            try await before.login(mvpd: "Dish", username: "carol", password: "carol123")
            #expect(await before.isAuthenticated())
            let after = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1", osVersion: "7.0")
            #expect(after.configuration.deviceID != before.configuration.deviceID)
            await after.start("REF30", base: fixture.serviceProvider)
            #expect(after.delegate.statuses.contains { $0["errorId"] == "SEC412" })
            #expect(await after.isAuthenticated() == false)
        }
    }

    // MARK: - Issue #17 B.4: the tech note's other rows

    /// AccessEnabler 1.7: the tech note's second combination as written — the other app sees the token, does not use
    /// it (another device ID), and both stay signed in once each has signed in.
    @Test func sameTeamOtherPrefixWithAccessEnabler17EachSignsInOnceAndBothStaySignedIn() async throws {
        try await SDKFixture.with { fixture in
            let news = try fixture.simulatedApp(bundleID: "com.example.news.app", team: "TEAM1", sdkRelease: .v1_7)
            let sports = try fixture.simulatedApp(bundleID: "com.other.sports.app", team: "TEAM1", sdkRelease: .v1_7)
            #expect(news.configuration.deviceID != sports.configuration.deviceID)
            #expect(news.configuration.storage == sports.configuration.storage)
            await news.start("REF30", base: fixture.serviceProvider)
            try await news.login(mvpd: "Dish", username: "carol", password: "carol123")
            // The other app detects the token but does not use it: not signed in, and nothing removed (no SEC412)
            await sports.start("SPORTS1", base: fixture.serviceProvider)
            #expect(!sports.delegate.statuses.contains { $0["errorId"] == "SEC412" })
            #expect(await sports.isAuthenticated() == false)
            let storage = try JSONDecoder().decode(TokenStorage.self, from: try #require(try news.configuration.storage.read()))
            #expect(storage.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken != nil, "News's token is still there")
            try await sports.login(mvpd: "Dish", username: "carol", password: "carol123")
            #expect(await sports.isAuthenticated())
            // Back in the first app: still signed in, and so is the second after it
            await news.start("REF30", base: fixture.serviceProvider)
            #expect(!news.delegate.statuses.contains { $0["errorId"] == "SEC412" })
            #expect(await news.isAuthenticated())
            await sports.start("SPORTS1", base: fixture.serviceProvider)
            #expect(await sports.isAuthenticated())
        }
    }

    /// A 1.8 app next to a 1.7 one: the 1.8 app's sanitizer wipes the 1.7 app's sign-in, not the other way round.
    @Test func aMixOf17And18WipesOnlyThe17AppsSignIn() async throws {
        try await SDKFixture.with { fixture in
            let old = try fixture.simulatedApp(bundleID: "com.example.news.app", team: "TEAM1", sdkRelease: .v1_7)
            let new = try fixture.simulatedApp(bundleID: "com.other.sports.app", team: "TEAM1", sdkRelease: .v1_8)
            await old.start("REF30", base: fixture.serviceProvider)
            try await old.login(mvpd: "Dish", username: "carol", password: "carol123")
            await new.start("SPORTS1", base: fixture.serviceProvider)
            #expect(new.delegate.statuses.contains { $0["errorId"] == "SEC412" })
            try await new.login(mvpd: "Dish", username: "carol", password: "carol123")
            await old.start("REF30", base: fixture.serviceProvider)
            #expect(await old.isAuthenticated() == false, "the 1.8 app removed it")
            try await old.login(mvpd: "Dish", username: "carol", password: "carol123")
            await new.start("SPORTS1", base: fixture.serviceProvider)
            #expect(await new.isAuthenticated(), "the 1.7 app left it")
        }
    }

    /// iOS 6 and earlier: one pasteboard for every app and the device ID from the MAC address, so a sign-in reaches an
    /// app of another team and another bundle-ID prefix — and its authorization works (DISH, issue #17 B.0).
    @Test func onIOS6AppsOfAnyTeamShareTheSignIn() async throws {
        try await SDKFixture.with { fixture in
            let news = try fixture.simulatedApp(bundleID: "com.example.news.app", team: "TEAM1", osVersion: "6.1.4")
            let sports = try fixture.simulatedApp(bundleID: "org.acme.sports.ios", team: "TEAM2", osVersion: "6.1.4")
            #expect(news.configuration.deviceID == sports.configuration.deviceID)
            #expect(news.configuration.storage == sports.configuration.storage)
            await news.start("REF30", base: fixture.serviceProvider)
            try await news.login(mvpd: "Dish", username: "carol", password: "carol123")
            await sports.start("SPORTS1", base: fixture.serviceProvider)
            sports.enabler.getAuthorization("sports")
            await sports.settle()
            #expect(!sports.delegate.names.contains("displayProviderDialog"))
            #expect(sports.delegate.main.contains { if case .setToken(_, "sports") = $0 { true } else { false } }, "\(sports.delegate.main)")
            // The same two apps on iOS 7: different teams, separate pasteboards
            let news7 = try fixture.simulatedApp(bundleID: "com.example.news.app", team: "TEAM1", osVersion: "7.0")
            let sports7 = try fixture.simulatedApp(bundleID: "org.acme.sports.ios", team: "TEAM2", osVersion: "7.0")
            #expect(news7.configuration.storage != sports7.configuration.storage)
            #expect(news7.configuration.deviceID != sports7.configuration.deviceID)
        }
    }

    /// The 1.7 sanitizer was written for the iOS 6 → 7 upgrade: it too clears the tokens bound to the MAC-based ID.
    @Test func upgradeFromIOS6To7WithAccessEnabler17AlsoClearsTheOldTokens() async throws {
        try await SDKFixture.with { fixture in
            let before = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1", osVersion: "6.1.4", sdkRelease: .v1_7)
            await before.start("REF30", base: fixture.serviceProvider)
            try await before.login(mvpd: "Dish", username: "carol", password: "carol123")
            let after = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1", osVersion: "7.0", sdkRelease: .v1_7)
            await after.start("REF30", base: fixture.serviceProvider)
            #expect(after.delegate.statuses.contains { $0["errorId"] == "SEC412" })
            #expect(await after.isAuthenticated() == false)
        }
    }

    /// The English overview: "iOS 10 Pasteboard Changes — when upgrading from a previous version of iOS, the pasteboard
    /// will be erased. This means that all applications need to be re-authenticated."
    @Test func upgradeToIOS10ErasesThePasteboardAndEveryAppSignsInAgain() async throws {
        try await SDKFixture.with { fixture in
            let news = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1", osVersion: "9.3.5")
            let sports = try fixture.simulatedApp(bundleID: "com.example.tv.sports", team: "TEAM1")
            await news.start("REF30", base: fixture.serviceProvider)
            try await news.login(mvpd: "Dish", username: "carol", password: "carol123")
            await sports.start("SPORTS1", base: fixture.serviceProvider)
            #expect(await sports.isAuthenticated(), "single sign-on before the upgrade")
            AccessEnabler.waitForAllStorageWrites(in: [fixture.folder.root])
            // The phone is upgraded to iOS 10: the same apps, launched again
            let news10 = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1", osVersion: "10.0")
            #expect(news10.configuration.deviceID == news.configuration.deviceID, "iOS 10 keeps the vendor ID")
            #expect(try news10.configuration.storage.read() == nil, "the pasteboard is erased")
            let sports10 = try fixture.simulatedApp(bundleID: "com.example.tv.sports", team: "TEAM1")
            await news10.start("REF30", base: fixture.serviceProvider)
            #expect(await news10.isAuthenticated() == false)
            await sports10.start("SPORTS1", base: fixture.serviceProvider)
            #expect(await sports10.isAuthenticated() == false)
            // A later launch on iOS 10 is no upgrade: a new sign-in stays
            try await news10.login(mvpd: "Dish", username: "carol", password: "carol123")
            let again = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1", osVersion: "10.0")
            await again.start("REF30", base: fixture.serviceProvider)
            #expect(await again.isAuthenticated())
        }
    }
}
