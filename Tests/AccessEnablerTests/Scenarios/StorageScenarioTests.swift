import AccessEnabler
import Foundation
import PassProtocol
import PassStorage
import Testing

/// Storage 1.7 (seed 002): several Programmer–MVPD buckets, the token importer, passive authentication. The first
/// scenario on both protocols; the v2 replays of the others are V2ScenarioTests.
@Suite struct StorageScenarioTests {
    /// The overview's example: App1/Programmer1 with MVPD1, App2/Programmer2 with MVPD2, back to App1 still signed in.
    @Test(arguments: EntitlementProtocol.allCases) func app1App2ExampleKeepsBothSessions(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app1 = try fixture.simulatedApp(bundleID: "com.example.tv.sports", team: "TEAM1", wire: wire)
            await app1.start("SPORTS1", base: fixture.serviceProvider)
            try await app1.login(mvpd: "Dish", username: "carol", password: "carol123")
            // Programmer2 (KIDSNET) is not integrated with Dish... it is in the demo data, so use Spectrum, which
            // SPORTS1 does not integrate: App2 authenticates with Spectrum
            let app2 = try fixture.simulatedApp(bundleID: "com.example.tv.kids", team: "TEAM1", wire: wire)
            await app2.start("KIDSNET", base: fixture.serviceProvider)
            app2.enabler.setSelectedProvider("Spectrum")
            app2.enabler.getAuthentication(forceAuthn: true)
            await app2.settle()
            let end = try await app2.webView.signIn(at: try #require(app2.delegate.lastURL), username: "bob", password: "bob123")
            app2.enabler.handleExternalURL(end)
            await app2.settle()
            #expect(await app2.isAuthenticated())
            await app1.start("SPORTS1", base: fixture.serviceProvider)
            #expect(await app1.isAuthenticated(), "storage 1.7 keeps App1's bucket")
            switch wire {
            case .sdk:
                let storage = try JSONDecoder().decode(TokenStorage.self, from: try #require(try app1.configuration.storage.read()))
                #expect(storage.bucket(requestor: "SPORTS1", mvpd: "Dish")?.authnToken != nil)
                #expect(storage.bucket(requestor: "KIDSNET", mvpd: "Spectrum")?.authnToken != nil)
            case .restV2:
                // Each app keeps its own Programmer's profile copy; the team's storage is never written
                #expect(try app1.v2State().requestors.keys.sorted() == ["SPORTS1"])
                #expect(try app1.v2State().requestors["SPORTS1"]?.profile?.mvpd == "Dish")
                #expect(try app2.v2State().requestors["KIDSNET"]?.profile?.mvpd == "Spectrum")
                #expect(try app1.configuration.storage.read() == nil)
            }
        }
    }

    @Test func importerBringsATokenFromTheOlderStorageOnce() async throws {
        try await SDKFixture.with { fixture in
            // Given a token from an older SDK version (pre-1.7 single-token layout) on this device
            let seed = try fixture.simulatedApp(bundleID: "com.example.tv.seed", team: "TEAM1")
            await seed.start("REF30", base: fixture.serviceProvider)
            try await seed.login(mvpd: "Dish", username: "carol", password: "carol123")
            let current = try JSONDecoder().decode(TokenStorage.self, from: try #require(try seed.configuration.storage.read()))
            let token = try #require(current.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken)
            var legacy = LegacyTokenStorage(version: .v2)
            legacy.canAuthenticate = true
            legacy.currentMvpdID = "Dish"
            legacy.globalAuthnToken = token
            try fixture.folder.legacy("storage-v2.json").write(try JSONEncoder().encode(legacy))
            try seed.configuration.storage.remove()
            // When a 1.7 app starts for the first time
            let app = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1")
            await app.start("REF30", base: fixture.serviceProvider)
            #expect(await app.isAuthenticated(), "imported")
            // After logout the old token is not imported again
            app.enabler.logout()
            await app.settle()
            await app.start("REF30", base: fixture.serviceProvider)
            #expect(await app.isAuthenticated() == false)
        }
    }

    @Test func withNoOlderStorageTheImporterLeavesNoMarkerAndAnOlderTokenArrivingLaterIsImported() async throws {
        try await SDKFixture.with { fixture in
            // Given an app started on a device with no older storage
            let app = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1")
            await app.start("REF30", base: fixture.serviceProvider)
            #expect(await app.isAuthenticated() == false)
            // Then nothing was written for the importer (no durable write on a cold start)
            let marker = try #require(app.configuration.importMarker)
            #expect(try marker.read() == nil)
            // When an older SDK of the team leaves a token afterwards, the next start imports it
            let seed = try fixture.simulatedApp(bundleID: "com.example.tv.seed", team: "TEAM1")
            await seed.start("REF30", base: fixture.serviceProvider)
            try await seed.login(mvpd: "Dish", username: "carol", password: "carol123")
            let current = try JSONDecoder().decode(TokenStorage.self, from: try #require(try seed.configuration.storage.read()))
            var legacy = LegacyTokenStorage(version: .v2)
            legacy.canAuthenticate = true
            legacy.currentMvpdID = "Dish"
            legacy.globalAuthnToken = try #require(current.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken)
            try fixture.folder.legacy("storage-v2.json").write(try JSONEncoder().encode(legacy))
            try seed.configuration.storage.remove()
            await app.start("REF30", base: fixture.serviceProvider)
            #expect(await app.isAuthenticated(), "imported on the next start")
            #expect(try marker.read() != nil)
        }
    }

    @Test func passiveAuthenticationDuringSetRequestor() async throws {
        try await SDKFixture.with { fixture in
            // Cablevision has authentication per requestor: no copy, but a passive login for the second Programmer
            let sports = try fixture.simulatedApp(bundleID: "com.example.tv.sports", team: "TEAM1")
            await sports.start("SPORTS1", base: fixture.serviceProvider)
            try await sports.login(mvpd: "Cablevision", username: "alice", password: "alice123")
            let news = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1")
            await news.start("REF30", base: fixture.serviceProvider)
            #expect(news.delegate.statuses.contains { $0["errorId"] == "N001" })
            #expect(news.delegate.main.first == .setRequestorComplete(status: 1))
            #expect(!news.delegate.names.contains("navigateToUrl"), "no login page")
            #expect(await news.isAuthenticated())
            let storage = try JSONDecoder().decode(TokenStorage.self, from: try #require(try news.configuration.storage.read()))
            let ownToken = try #require(storage.bucket(requestor: "REF30", mvpd: "Cablevision")?.authnToken)
            #expect(try SignedToken<AuthNToken>.parse(ownToken).body.requestorID == "REF30", "a token of its own, not a copy")
        }
    }
}
