import AccessEnabler
import Foundation
import PassBackend
import PassProtocol
import Testing

/// The SSO tech note's rows (SSOTechNoteTests) and the MVPD-flag matrix (SSOFlagMatrixTests) replayed on REST API v2,
/// every app on v2 from the start (design note §10): nothing is shared through the device's storage and a profile is
/// its registered client's, so in every row each app signs in once, and neither wipes the other (no SEC412, no N001).
@Suite struct V2SSOReplayTests {
    /// Two apps of the tech note: bundle IDs, teams, the OS version of the device, the release whose rules they follow.
    struct Pair: Sendable, CustomTestStringConvertible {
        var news: (bundleID: String, team: String)
        var sports: (bundleID: String, team: String)
        var osVersion: String?
        var release: SDKRelease = .current
        var name: String
        var testDescription: String { name }
    }

    static let pairs = [
        Pair(news: ("com.example.tv.news", "TEAM1"), sports: ("com.example.tv.sports", "TEAM1"), name: "same team, same prefix"),
        Pair(news: ("com.example.news.app", "TEAM1"), sports: ("com.other.sports.app", "TEAM1"), name: "same team, other prefix (1.8)"),
        Pair(news: ("com.example.news.app", "TEAM1"), sports: ("com.other.sports.app", "TEAM1"), release: .v1_7,
             name: "same team, other prefix (1.7)"),
        Pair(news: ("com.example.tv.news", "TEAM1"), sports: ("org.acme.sports.ios", "TEAM2"), name: "other teams"),
        Pair(news: ("com.example.news.app", "TEAM1"), sports: ("org.acme.sports.ios", "TEAM2"), osVersion: "6.1.4",
             name: "iOS 6: one pasteboard for every app"),
    ]

    @Test(arguments: pairs)
    func eachAppSignsInOnceAndBothStaySignedIn(_ pair: Pair) async throws {
        try await SDKFixture.with { fixture in
            let news = try fixture.simulatedApp(
                bundleID: pair.news.bundleID, team: pair.news.team, osVersion: pair.osVersion, sdkRelease: pair.release, wire: .restV2)
            let sports = try fixture.simulatedApp(
                bundleID: pair.sports.bundleID, team: pair.sports.team, osVersion: pair.osVersion, sdkRelease: pair.release,
                wire: .restV2)
            await news.start("REF30", base: fixture.serviceProvider)
            try await news.login(mvpd: "Dish", username: "carol", password: "carol123")
            await sports.start("SPORTS1", base: fixture.serviceProvider)
            #expect(sports.delegate.statuses.isEmpty, "no SEC412, no N001: \(sports.delegate.statuses)")
            #expect(await sports.isAuthenticated() == false, "a profile is its registered client's")
            try await sports.login(mvpd: "Dish", username: "carol", password: "carol123")
            #expect(await sports.isAuthenticated())
            // Back in the first app: still signed in (nothing on the device was wiped)
            await news.start("REF30", base: fixture.serviceProvider)
            #expect(await news.isAuthenticated())
        }
    }

    /// The iOS 10 upgrade erases the pasteboards, where the seeds' tokens lived; v2 keeps its state in each app's
    /// private storage and the vendor ID (the device identifier) stays, so the sign-in survives the upgrade.
    @Test func anUpgradeToIOS10KeepsTheSignIn() async throws {
        try await SDKFixture.with { fixture in
            let news = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1", osVersion: "9.3.5", wire: .restV2)
            await news.start("REF30", base: fixture.serviceProvider)
            try await news.login(mvpd: "Dish", username: "carol", password: "carol123")
            let news10 = try fixture.simulatedApp(bundleID: "com.example.tv.news", team: "TEAM1", osVersion: "10.0", wire: .restV2)
            #expect(news10.configuration.deviceID == news.configuration.deviceID)
            await news10.start("REF30", base: fixture.serviceProvider)
            #expect(news10.delegate.statuses.isEmpty)
            #expect(await news10.isAuthenticated())
        }
    }

    /// SSOFlagMatrixTests' configuration with a registered app (software statement, both APIs) for each Programmer.
    static let matrixConfiguration: BackendConfiguration = {
        var configuration = SSOFlagMatrixTests.configuration
        configuration.apps = ["NEWS", "SPORTS"].map {
            RegisteredApp(name: $0, requestorID: $0, publicKey: "\($0)-key", secret: "\($0)-secret", softwareStatement: "\($0)-statement")
        }
        return configuration
    }()

    /// Every combination of `authPerRequestor` × `passiveAuthn`: on v2 none gives the other Programmer's app a silent
    /// sign-in (no copy, no passive authentication); the picker asks, the user signs in, and the check and the
    /// authorization agree.
    @Test(arguments: SSOFlagMatrixTests.combinations)
    func noMVPDFlagGivesTheOtherProgrammerASilentSignIn(_ flags: SSOFlagMatrixTests.Flags) async throws {
        try await SDKFixture.with(configuration: Self.matrixConfiguration) { fixture in
            func app(_ bundleID: String, _ requestor: String) throws -> TestApp {
                try fixture.simulatedApp(bundleID: bundleID, team: "TEAM1", wire: .restV2) { $0.softwareStatement = "\(requestor)-statement" }
            }
            let news = try app("com.example.apps.news", "NEWS")
            let sports = try app("com.example.apps.sports", "SPORTS")
            await news.start("NEWS", base: fixture.serviceProvider)
            try await news.login(mvpd: flags.mvpd, username: "user", password: "secret")
            news.enabler.getAuthorization("news")
            await news.settle()
            #expect(news.delegate.lastToken != nil, "\(news.delegate.names)")
            await sports.start("SPORTS", base: fixture.serviceProvider)
            #expect(!sports.delegate.statuses.contains { $0["errorId"] == "N001" })
            #expect(await sports.isAuthenticated() == false)
            sports.delegate.clear()
            sports.enabler.getAuthorization("sports")
            await sports.settle()
            #expect(sports.delegate.names.contains("displayProviderDialog"))
            sports.enabler.setSelectedProvider(nil)
            await sports.settle()
            try await sports.login(mvpd: flags.mvpd, username: "user", password: "secret")
            sports.delegate.clear()
            sports.enabler.getAuthorization("sports")
            await sports.settle()
            #expect(sports.delegate.main.map(\.name) == ["setToken"])
            #expect(await sports.isAuthenticated())
            #expect(await news.isAuthenticated())
        }
    }
}
