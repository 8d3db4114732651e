import AccessEnabler
import Foundation
import HistoryTestSupport
import PassBackend
import PassProtocol
import PassTestSupport
import Testing
@testable import PassConsole

/// Field problems support staff meet most, replayed on the backend: the console names each in the session's health
/// card (../shared/research/field-problems.md, "the ten that matter most").
@Suite(.serialized)
struct DiagnosisReplayTests {
    /// The health verdicts of `bundleID`'s session once they name every one of `expected` (the history is written

    @Test(arguments: HistoryBackend.allCases) func anMVPDDenialIsToldApartFromANetworkFailure(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            fixture.backend.faults.denials = [Denial(mvpd: "Cablevision", resource: "movies", message: "0033: Movies are not in your package")]
            fixture.backend.faults.rules = [FaultRule(path: "/adobe-services/1.0/authorizeDevice", status: 503, remaining: 1 + PassConstants.HTTP_RETRY_LIMIT)]
            try await fixture.signIn()
            // The first authorization meets the outage, the second the MVPD's refusal
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await fixture.waitForApp("news-ios") { (($0["flow"] as? [String: Any])?["detail"] as? String ?? "").hasPrefix("Authorization of news failed") }
            try await fixture.call("news-ios", "getAuthorization", ["resource": "movies"])
            try await fixture.waitForApp("news-ios") { (($0["flow"] as? [String: Any])?["detail"] as? String ?? "").hasPrefix("Authorization of movies failed") }
            let found = try await fixture.verdicts(app: "com.example.news.ios", naming: ["network_failure", "mvpd_denied"])
            let ids = found.compactMap { $0["id"] as? String }
            #expect(ids.contains("network_failure"))
            #expect(ids.contains("mvpd_denied"))
            let denial = try #require(found.first { $0["id"] as? String == "mvpd_denied" })
            #expect((denial["text"] as? String)?.contains("Movies are not in your package") == true)
            // Each names its side: the MVPD's decision, the network (the service's 503)
            #expect(denial["side"] as? String == "mvpd")
            #expect((denial["text"] as? String)?.hasPrefix("MVPD decision “denied the resource”") == true)
            let outage = try #require(found.first { $0["id"] as? String == "network_failure" })
            #expect(outage["side"] as? String == "network")
            #expect((outage["text"] as? String)?.hasPrefix("Network “service failing” (HTTP 503)") == true)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func anotherAppWithAnotherBundlePrefixSignsTheFirstOutAndTheConsoleSaysWhy(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            // Given a second app of the same team whose bundle ID has another prefix (another vendor ID, another device ID)
            let other = ConsoleAppSpec(
                id: "other-ios", name: "Other", app: AppIdentity(bundleID: "com.example.other.app", teamID: "TEAM1234"),
                requestorID: "REF30", resources: ["news"], mvpds: [.init(id: "Cablevision", displayName: "Optimum")])
            try fixture.console.addApp(other, device: "phone", serviceProvider: URL(string: fixture.backendURL + "/adobe-services")!)
            // When it starts, its token sanitizer removes the token bound to the first app's device ID
            try await fixture.start("other-ios")
            // Then the other app's session names it in words
            let found = try await fixture.verdicts(app: "com.example.other.app", naming: ["device_id_changed"])
            let verdict = try #require(found.first { $0["id"] as? String == "device_id_changed" })
            #expect((verdict["text"] as? String)?.contains("different bundle-ID prefix") == true)
            #expect(verdict["side"] as? String == "sdkStorage")
            #expect(verdict["rule"] as? String == "device ID mismatch")
            // And the device page shows the pair as sharing storage but not the sign-in
            let relations = await fixture.get("/api/devices").json["relations"] as? [[String: Any]] ?? []
            #expect(relations.contains { $0["a"] as? String == "com.example.news.ios" && $0["b"] as? String == "com.example.other.app"
                && $0["outcome"] as? String == "sharedStorageReauth" } || relations.contains { $0["b"] as? String == "com.example.news.ios"
                && $0["a"] as? String == "com.example.other.app" && $0["outcome"] as? String == "sharedStorageReauth" })
        }
    }

    @Test(arguments: HistoryBackend.allCases) func aSessionRevokedOnTheServerIsNamedAsSuch(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            // Given the server forgets the session (an MVPD-side logout) while the local token still looks valid
            fixture.backend.revokeSessions()
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await fixture.waitForApp("news-ios") { (($0["flow"] as? [String: Any])?["detail"] as? String ?? "").hasPrefix("Authorization of news failed") }
            let found = try await fixture.verdicts(app: "com.example.news.ios", naming: ["server_session_gone"])
            let verdict = try #require(found.first { $0["id"] as? String == "server_session_gone" })
            // The backend's own check, from the Authzf-Error-Code recorded with the exchange
            #expect(verdict["side"] as? String == "backend")
            #expect(verdict["rule"] as? String == "session ended on the server")
            #expect((verdict["text"] as? String)?.contains("(session_revoked)") == true)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func aDeviceClockTwoDaysBehindIsNamedWithItsOffset(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given the demo device's clock set two days back (the backend keeps the right time)
            fixture.clock.advance(by: -2 * 86_400)
            try await fixture.signIn()
            // Then the SDK warned with CFG100, and the session's card names the offset measured on the answers
            let app = try await fixture.app("news-ios")
            let callbacks = app["callbacks"] as? [[String: Any]] ?? []
            #expect(callbacks.contains { ($0["text"] as? String ?? "\($0)").contains("CFG100") })
            let found = try await fixture.verdicts(app: "com.example.news.ios", naming: ["clock_offset"])
            let verdict = try #require(found.first { $0["id"] as? String == "clock_offset" })
            #expect((verdict["title"] as? String)?.hasPrefix("Device clock off by 2 d") == true)
            #expect((verdict["text"] as? String)?.contains("behind the backend's") == true)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func anAppConfiguredForAnotherEnvironmentFailsOnEveryDeviceAndGetsOneBanner(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given one app build whose requestor ID exists only in another environment, on two devices
            let provider = URL(string: fixture.backendURL + "/adobe-services")!
            for (id, device) in [("staging-phone", "phone"), ("staging-tv", "tv")] {
                try fixture.console.addApp(ConsoleAppSpec(
                    id: id, name: "Staging build", app: AppIdentity(bundleID: "com.example.staging.app", teamID: "TEAM9"),
                    requestorID: "REF30_STAGING", resources: ["news"], mvpds: []), device: device, serviceProvider: provider)
            }
            // When it starts on the first device only, it is one user's problem: no banner
            try await fixture.start("staging-phone")
            try await Task.sleep(for: .milliseconds(200))
            #expect((await fixture.get("/api/overview").json["fleet"] as? [Any])?.isEmpty == true)
            // When it fails on the second device too, the overview carries one banner for the app
            let tvStart = await fixture.post("/api/apps/staging-tv/start")
            #expect(tvStart.status == 200, "\(tvStart.text)")
            try await fixture.waitForApp("staging-tv") { (($0["callbacks"] as? [[String: Any]]) ?? []).contains { $0["name"] as? String == "setRequestorComplete" } }
            var alerts: [[String: Any]] = []
            for _ in 0..<50 where alerts.isEmpty {
                try await Task.sleep(for: .milliseconds(100))
                alerts = await fixture.get("/api/overview").json["fleet"] as? [[String: Any]] ?? []
            }
            let alert = try #require(alerts.first)
            #expect(alerts.count == 1)
            #expect(alert["id"] as? String == "wrong_environment")
            #expect(alert["code"] as? String == "CFG400")
            #expect(alert["side"] as? String == "backend")
            #expect(alert["rule"] as? String == "requestor unknown")
            #expect(alert["devices"] as? Int == 2)
            #expect((alert["text"] as? String)?.contains("REF30_STAGING is unknown") == true)
            #expect((alert["text"] as? String)?.contains("127.0.0.1") == true)
            // And a good app of the console raises nothing
            #expect(!alerts.contains { $0["bundleID"] as? String == "com.example.news.ios" })
        }
    }

    @Test(arguments: HistoryBackend.allCases) func aSecondScreenCodeThatNeverActivatesSaysWhyFromTheBackendsAttempts(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given the TV app showing a registration code
            try await fixture.start("kids-tvos")
            try await fixture.call("kids-tvos", "getAuthentication")
            try await fixture.waitForApp("kids-tvos") { pending($0)["providerDialog"] is [Any] || pending($0)["regcode"] is [String: Any] }
            if try await pending(fixture.app("kids-tvos"))["regcode"] == nil {
                try await fixture.call("kids-tvos", "setSelectedProvider", ["mvpd": "Dish"])
            }
            try await fixture.waitForApp("kids-tvos") { pending($0)["regcode"] is [String: Any] }
            let code = try #require((try await pending(fixture.app("kids-tvos"))["regcode"] as? [String: Any])?["code"] as? String)
            // When a second screen uses it for another requestor, then through a link whose &reg_code became ®_code
            let client = TestHTTPClient(baseURL: fixture.backendURL)
            let wrong = try await client.get("/api/v1/authenticate?reg_code=\(code)&requestor_id=REF30&mso_id=Dish")
            #expect(wrong.status == 400)
            let mangled = try await client.get("/api/v1/authenticate?%C2%AE_code=\(code)&requestor_id=KIDSNET&mso_id=Dish")
            #expect(mangled.status == 400)
            // Then the TV's session says the code never activated, lists both attempts and gives the last one's reason
            let found = try await fixture.verdicts(app: "com.kidsnet.tv.app", naming: ["second_screen_code_not_activated"])
            let verdict = try #require(found.first { $0["id"] as? String == "second_screen_code_not_activated" })
            let text = try #require(verdict["text"] as? String)
            #expect((verdict["title"] as? String) == "Code \(code) never activated")
            #expect(text.contains("was refused: The link says ®_code instead of reg_code"))
            #expect(verdict["side"] as? String == "backend")
            #expect(text.contains("belongs to KIDSNET, but the sign-in named REF30"))
            #expect(text.contains("valid until"))
        }
    }

    @Test(arguments: HistoryBackend.allCases) func aRealSessionOfTheSDKKeepsEveryRuleOfItsCallbackContract(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // A full life: login through the picker and the MVPD page, authorizations (one denied), a check, a logout
            fixture.backend.faults.denials = [Denial(mvpd: "Cablevision", resource: "movies", message: "0033: not in package")]
            try await fixture.signIn()
            for resource in ["news", "movies"] {
                try await fixture.call("news-ios", "getAuthorization", ["resource": resource])
                try await fixture.waitForApp("news-ios") { (($0["callbacks"] as? [[String: Any]]) ?? []).contains {
                    ["setToken", "tokenRequestFailed"].contains($0["name"] as? String) && "\($0)".contains(resource) } }
            }
            try await fixture.call("news-ios", "checkAuthentication")
            try await fixture.call("news-ios", "logout")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == false }
            try await fixture.waitUntilRecorded(atLeast: 30)
            let sessions = await fixture.get("/api/sessions?q=com.example.news.ios").json["sessions"] as? [[String: Any]] ?? []
            let id = try #require(sessions.first?["id"] as? String)
            let rules = await fixture.get("/api/sessions/\(id)").json["contract"] as? [[String: Any]] ?? []
            let broken = rules.filter { $0["status"] as? String == "broken" }
            #expect(broken.isEmpty, "\(broken)")
            let kept = Set(rules.filter { $0["status"] as? String == "kept" }.compactMap { $0["id"] as? String })
            #expect(kept.isSuperset(of: ["requestor_first", "one_authorization_answer", "authorization_tracked",
                "authentication_tracked", "documented_error_codes", "media_tokens_not_stored", "check_is_local", "logout_ends_signed_out"]))
        }
    }

    @Test(arguments: HistoryBackend.allCases) func twoRunsOfOneAppAreComparedAndTheirFirstDifferenceIsNamed(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Run 1: news authorized. Run 2 (the app restarted, authorization cached): the media token call fails.
            try await fixture.signIn()
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await fixture.waitForApp("news-ios") { (($0["callbacks"] as? [[String: Any]]) ?? []).contains { $0["name"] as? String == "setToken" } }
            let first = try #require(try await fixture.app("news-ios")["sessionID"] as? String)
            #expect(await fixture.post("/api/apps/news-ios/stop").status == 200)
            fixture.backend.faults.rules = [FaultRule(path: "/adobe-services/1.0/deviceShortAuthorize", status: 503, remaining: 1 + PassConstants.HTTP_RETRY_LIMIT)]
            #expect(await fixture.post("/api/apps/news-ios/start").status == 200)
            try await fixture.waitForApp("news-ios") { ($0["sessionID"] as? String) != first && (($0["callbacks"] as? [[String: Any]]) ?? []).contains { $0["name"] as? String == "setRequestorComplete" } }
            let second = try #require(try await fixture.app("news-ios")["sessionID"] as? String)
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await fixture.waitForApp("news-ios") { (($0["callbacks"] as? [[String: Any]]) ?? []).contains { $0["name"] as? String == "tokenRequestFailed" } }
            try await fixture.waitUntilRecorded(atLeast: 1)
            let answer = await fixture.get("/api/sessions/\(first)/diff?with=\(second)")
            #expect(answer.status == 200)
            let diff = try #require(answer.json["diff"] as? [String: Any])
            let rows = diff["rows"] as? [[String: Any]] ?? []
            #expect(rows.contains { $0["status"] as? String == "changed" && ($0["step"] as? String ?? "").hasSuffix("deviceShortAuthorize") })
            #expect(rows.contains { $0["status"] as? String == "onlyB" && ($0["step"] as? String) == "callback tokenRequestFailed" })
            #expect((diff["verdict"] as? String)?.hasPrefix("The runs part ways") == true)
            #expect(await fixture.get("/api/sessions/\(first)/diff").status == 400)
        }
    }
}
