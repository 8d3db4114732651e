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
        }
    }

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
}
