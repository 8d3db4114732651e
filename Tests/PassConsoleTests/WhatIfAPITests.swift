import AccessEnabler
import Foundation
import HistoryTestSupport
import PassSimulator
import PassStorage
import Testing

@testable import PassConsole

/// Issue #17 B.4: the Devices page's what-if answers for every row of the SSO tech note (seed 003) and the English
/// overview's iOS 10 upgrade, against the demo phone (News `com.example.news.ios` and Sports One
/// `com.example.news.sports`, team TEAM1234).
@Suite(.serialized)
struct WhatIfAPITests {
    func whatIf(_ fixture: ConsoleFixture, _ body: [String: String]) async throws -> [String: Any] {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let answer = await fixture.post("/api/devices/whatif", json: json)
        try #require(answer.status == 200, "\(answer.text)")
        return answer.json
    }

    /// The relation of the candidate with News.
    func withNews(_ answer: [String: Any]) throws -> [String: Any] {
        try #require((answer["relations"] as? [[String: Any]] ?? []).first { $0["b"] as? String == "com.example.news.ios" })
    }

    /// Gives the phone a profile on `osVersion` (the console's apps read it when they start).
    func phone(_ fixture: ConsoleFixture, osVersion: String) throws {
        let folder = DeviceFolder(root: fixture.root.appendingPathComponent("phone"))
        _ = try DeviceProfile.loadOrCreate(in: folder, platform: .iOS, osVersion: osVersion)
    }

    @Test(arguments: HistoryBackend.allCases) func everyRowOfTheTechNote(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try phone(fixture, osVersion: "17.2")
            // Same team, same bundle-ID prefix: single sign-on
            let same = try await whatIf(fixture, ["bundleID": "com.example.news.weather", "teamID": "TEAM1234"])
            #expect(try withNews(same)["outcome"] as? String == "sso")
            #expect(same["storage"] as? String == "team TEAM1234")
            // Same team, another prefix: 1.8 wipes, 1.7 signs in once each
            let wipe = try await whatIf(fixture, ["bundleID": "com.example.weather.app", "teamID": "TEAM1234"])
            #expect(try withNews(wipe)["outcome"] as? String == "sharedStorageReauth")
            #expect(wipe["sdkRelease"] as? String == "1.8")
            let each = try await whatIf(fixture, ["bundleID": "com.example.weather.app", "teamID": "TEAM1234", "sdkRelease": "1.7"])
            let eachNews = try withNews(each)
            // The demo's News app runs this SDK (1.8 rules): it wipes the 1.7 app's sign-in
            #expect(eachNews["outcome"] as? String == "sharedStorageReauth")
            #expect((eachNews["reason"] as? String)?.contains("com.example.news.ios's sanitizer") == true, "\(eachNews)")
            // Another team: isolated
            let other = try await whatIf(fixture, ["bundleID": "org.acme.sports.ios", "teamID": "ACME5678"])
            #expect(try withNews(other)["outcome"] as? String == "isolated")
            // The same app on iOS 6: one pasteboard for every app, SSO whatever the team
            let legacy = try await whatIf(fixture, ["bundleID": "org.acme.sports.ios", "teamID": "ACME5678", "osVersion": "6.1.4"])
            #expect(try withNews(legacy)["outcome"] as? String == "sso")
            #expect(legacy["storage"] as? String == "every app")
            #expect((legacy["algorithm"] as? String)?.contains("MAC") == true)
            #expect(legacy["upgrade"] == nil || legacy["upgrade"] is NSNull, "a lower version is no upgrade")
        }
    }

    @Test(arguments: HistoryBackend.allCases) func theUpgradeToIOS10IsAnsweredAndTheUpgradeDoesIt(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try phone(fixture, osVersion: "9.3.5")
            let answer = try await whatIf(fixture, ["bundleID": "com.example.news.weather", "teamID": "TEAM1234", "osVersion": "10.0"])
            let upgrade = try #require(answer["upgrade"] as? String)
            #expect(upgrade.contains("9.3.5 → 10.0 erases the pasteboard: every app signs in again"), "\(upgrade)")
            #expect(try withNews(answer)["outcome"] as? String == "sso", "after it, the same rules as before")
            // And an upgrade across iOS 7 says the device ID changes
            try phone(fixture, osVersion: "6.1.4")
            let seven = try await whatIf(fixture, ["bundleID": "com.example.news.weather", "teamID": "TEAM1234", "osVersion": "7.0"])
            #expect((seven["upgrade"] as? String)?.contains("changes the device ID") == true, "\(seven)")
        }
    }

    @Test(arguments: [
        ("abc", "invalid_os_version"), ("0.1", "invalid_os_version"), ("100.0", "invalid_os_version"),
        ("99999999999999999999", "invalid_os_version"), ("7.0-beta", "invalid_os_version"),
    ])
    func badInputIsAClearError(osVersion: String, code: String) async throws {
        try await ConsoleFixture.with { fixture in
            let json = #"{"bundleID":"com.example.a.b","teamID":"T","osVersion":"\#(osVersion)"}"#
            let answer = await fixture.post("/api/devices/whatif", json: json)
            #expect(answer.status == 400)
            #expect(answer.json["error"] as? String == code || answer.text.contains(code), "\(answer.text)")
            let release = await fixture.post("/api/devices/whatif", json: #"{"bundleID":"a.b","teamID":"T","sdkRelease":"2.0"}"#)
            #expect(release.status == 400)
            #expect(release.text.contains("unknown_sdk_release"), "\(release.text)")
        }
    }

    /// The console's own apps on a phone of iOS 6: both use the device's one pasteboard, which the Tokens page lists as
    /// such, and the Devices page reads single sign-on for any pair of iOS apps.
    @Test(arguments: HistoryBackend.allCases) func onAnIOS6PhoneTheConsoleShowsTheOnePasteboardOfEveryApp(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try phone(fixture, osVersion: "6.1.4")
            try await fixture.signIn("news-ios", mvpd: "Dish", user: "carol", password: "carol123")
            let domains = await fixture.get("/api/storage").json["domains"] as? [[String: Any]] ?? []
            let shared = try #require(domains.first { $0["id"] as? String == "phone/team:all-apps" }, "\(domains.map { $0["id"] })")
            #expect(shared["apps"] as? [String] == ["com.example.news.ios", "com.example.news.sports"])
            #expect((shared["label"] as? String)?.hasPrefix("Every app on phone") == true)
            #expect((shared["programmers"] as? [[String: Any]])?.contains { $0["requestorID"] as? String == "REF30" } == true)
            #expect(try await fixture.app("news-ios")["storageDomain"] as? String == "phone/team:all-apps")
            let other = try await whatIf(fixture, ["bundleID": "org.acme.sports.ios", "teamID": "ACME5678"])
            #expect(try withNews(other)["outcome"] as? String == "sso", "\(other)")
            #expect(other["storage"] as? String == "every app")
        }
    }
}
