import AccessEnabler
import Foundation
import HistoryTestSupport
import PassBackend
import PassStorage
import PassTestSupport
import Testing

@testable import PassConsole

/// Issue #15 item 2, "truthful answers": the health card, the Flows cards and the Devices page derive what they say
/// from the rules the SDK and the backend apply, and each refusal names its side and rule.
///
/// The ten problems of ../shared/research/field-problems.md ("the ten that matter most"), and where each is tested:
/// 1. #14/#9 device ID changed or differs — DiagnosisReplayTests.anotherAppWithAnotherBundlePrefix… (side asserted).
/// 2. #8/#31/#16 why was I logged out — here: storage wiped from outside, TTL expired, logout in another app.
/// 3. #22/#23 not in your package vs throttling vs network — DiagnosisReplayTests.anMVPDDenialIsToldApart… (sides
///    asserted) and here: throttled.
/// 4. #30 local token valid, server says no — DiagnosisReplayTests.aSessionRevokedOnTheServer… (rule asserted); and
///    here the other backend check people mistake for it: a token issued to another Programmer (an SSO copy whose
///    MVPD switched to authentication per requestor after the app's setRequestor).
/// 5. #19/#20 Apple SSO surprises — LoginPathDiagnosisTests.aLogoutUnderAppleSSOThenASignInWithoutAsking… and
///    .eachFallbackFromTheAppleDialogToTheProviderList… (the phone's Apple TV Provider, side asserted).
/// 6. #1/#3/#4 stuck on the login screen — here: a login page left open, and a second getAuthentication over it; #4
///    in LoginPathDiagnosisTests.anMVPDThatRequiresSafariShownInTheAppsWebView… (rule and side asserted).
/// 7. #33 login succeeded but the app says it failed (N130) — LoginPathDiagnosisTests.aTokenFetchedBeforeTheLogin…
///    (handleExternalURL before the login ended: the backend's session check, N130).
/// 8. #25/#26 clocks — DiagnosisReplayTests.aDeviceClockTwoDaysBehind… (a device finding, not a refusal).
/// 9. #6/#37/#5 fleet-wide failures — DiagnosisReplayTests.anAppConfiguredForAnotherEnvironment… (banner).
/// 10. #34 second-screen code never activates — DiagnosisReplayTests.aSecondScreenCodeThatNeverActivates….
@Suite(.serialized)
struct TruthfulAnswersTests {

    func signIn(_ app: [String: Any]) -> [String: Any] { app["signIn"] as? [String: Any] ?? [:] }

    func started(_ fixture: ConsoleFixture, _ app: String) async throws {
        #expect(await fixture.post("/api/apps/\(app)/start").status == 200)
        try await fixture.waitForApp(app) {
            (($0["callbacks"] as? [[String: Any]]) ?? []).contains { $0["name"] as? String == "setRequestorComplete" }
        }
    }

    // MARK: - The three reproductions of the issue

    @Test(arguments: HistoryBackend.allCases) func aTokenIssuedToAnotherProgrammerIsNamedAsTheBackendsCheckAndTheCardIsNotSignedIn(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given News (REF30) signed in with Dish, and Sports One (SPORTS1) on the same phone
            try await fixture.signIn("news-ios", mvpd: "Dish", user: "carol", password: "carol123")
            try await started(fixture, "sports-ios")
            // When Sports One checks: the SDK copies REF30's Dish token (silent SSO) and answers 1
            try await fixture.call("sports-ios", "checkAuthentication")
            try await fixture.waitForApp("sports-ios") { $0["authenticated"] as? Bool == true }
            // Then its card says signed in: DISH signs in once for every Programmer (issue #17 B.0)
            let sso = signIn(try await fixture.app("sports-ios"))
            #expect(sso["state"] as? String == "signedIn", "\(sso)")
            // When DISH switches to authentication per requestor on the service, after Sports One's setRequestor
            fixture.backend.faults.mvpdOverrides["Dish"] = MVPDOverride(authPerRequestor: true)
            // Then its card no longer says "Signed in": the backend now refuses a token of REF30 for SPORTS1
            let before = signIn(try await fixture.app("sports-ios"))
            #expect(before["state"] as? String == "deviceOnly", "\(before)")
            #expect((before["text"] as? String)?.contains("issued to REF30") == true)
            #expect((before["text"] as? String)?.contains("token issued to another Programmer") == true)
            // When it asks for an authorization
            try await fixture.call("sports-ios", "getAuthorization", ["resource": "sports"])
            try await fixture.waitForApp("sports-ios") {
                (($0["flow"] as? [String: Any])?["detail"] as? String ?? "").hasPrefix("Authorization of sports failed")
            }
            // Then the health card names the backend's check, not a logout by the TV provider
            let found = try await fixture.verdicts(app: "com.example.news.sports", naming: ["token_other_programmer"])
            let verdict = try #require(found.first { $0["id"] as? String == "token_other_programmer" }, "\(found)")
            #expect(verdict["side"] as? String == "backend")
            #expect(verdict["rule"] as? String == "token issued to another Programmer")
            let text = try #require(verdict["text"] as? String)
            #expect(text.hasPrefix("At "))
            #expect(text.contains("Backend check “token issued to another Programmer” (token_requestor_mismatch)"))
            #expect(text.contains("The token was issued to Programmer REF30, not to SPORTS1."))
            #expect(text.contains("silent single sign-on"))
            #expect(!text.contains("logged the user out"))
            #expect(!found.contains { $0["id"] as? String == "server_session_gone" })
            // And the card still does not say "Signed in" (the app itself was told 1 and never 0)
            let after = try await fixture.app("sports-ios")
            #expect(signIn(after)["state"] as? String != "signedIn", "\(signIn(after))")
        }
    }

    @Test(arguments: HistoryBackend.allCases) func aLogoutInNewsSignsSportsOneOutOnItsCardAndItsHealthSaysWho(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given News signed in with Optimum, and Sports One started after it: Optimum signs in per Programmer with
            // passive authentication, so Sports One's setRequestor gets a token of its own (as the Devices page says)
            try await fixture.signIn("news-ios")
            try await started(fixture, "sports-ios")
            try await fixture.waitForApp("sports-ios") {
                (($0["signIn"] as? [String: Any])?["state"] as? String) == "signedIn"
            }
            try await fixture.call("sports-ios", "checkAuthentication")
            try await fixture.waitForApp("sports-ios") { $0["authenticated"] as? Bool == true }
            // When News logs out (which clears the whole shared storage)
            try await fixture.call("news-ios", "logout")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == false }
            // Then Sports One's card shows signed out, though Sports One itself was never told
            try await fixture.waitForApp("sports-ios") {
                (($0["signIn"] as? [String: Any])?["state"] as? String) == "signedOut"
            }
            let card = try await fixture.app("sports-ios")
            #expect(card["authenticated"] as? Bool == true)
            #expect((signIn(card)["stale"] as? String)?.contains("next checkAuthentication or setRequestor") == true)
            // And its health card says who signed it out, by which storage rule
            let found = try await fixture.verdicts(app: "com.example.news.sports", naming: ["logged_out_by_other_app", "app_state_stale"])
            let verdict = try #require(found.first { $0["id"] as? String == "logged_out_by_other_app" }, "\(found)")
            #expect(verdict["side"] as? String == "sdkStorage")
            #expect((verdict["text"] as? String)?.contains("com.example.news.ios called logout") == true)
            #expect(
                (verdict["text"] as? String)?.contains("SDK storage rule “logout clears the shared storage”") == true)
            // And that Sports One still believes the status 1 it was last told (field problem #17)
            #expect(found.contains { $0["id"] as? String == "app_state_stale" }, "\(found)")
        }
    }

    @Test(arguments: HistoryBackend.allCases) func theDevicesPageSaysHowSingleSignOnBetweenNewsAndSportsOneWorksPerMVPD(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await started(fixture, "news-ios")
            let relations = await fixture.get("/api/devices").json["relations"] as? [[String: Any]] ?? []
            let pair = try #require(
                relations.first {
                    Set([$0["a"] as? String, $0["b"] as? String]) == [
                        "com.example.news.ios", "com.example.news.sports",
                    ]
                })
            // Single sign-on with both MVPDs the two Programmers share: Dish (no authentication per requestor) by
            // the SDK's copy, which the backend accepts (issue #17 B.0), Optimum (Cablevision, per requestor) by
            // passive authentication, a token of SPORTS1's own
            #expect(pair["outcome"] as? String == "sso", "\(pair)")
            let paths = pair["mvpds"] as? [[String: Any]] ?? []
            let dish = try #require(paths.first { $0["mvpd"] as? String == "Dish" })
            #expect(dish["outcome"] as? String == "sso")
            let cablevision = try #require(paths.first { $0["mvpd"] as? String == "Cablevision" })
            #expect(cablevision["outcome"] as? String == "passive")
            #expect((pair["reason"] as? String)?.contains("Single sign-on with Cablevision, Dish.") == true, "\(pair)")
            // When DISH switches to authentication per requestor on the service, the page follows at once
            fixture.backend.faults.mvpdOverrides["Dish"] = MVPDOverride(authPerRequestor: true)
            let after = await fixture.get("/api/devices").json["relations"] as? [[String: Any]] ?? []
            let changed = try #require(after.first { $0["a"] as? String == pair["a"] as? String && $0["b"] as? String == pair["b"] as? String })
            let dishAfter = try #require((changed["mvpds"] as? [[String: Any]] ?? []).first { $0["mvpd"] as? String == "Dish" })
            // Dish per requestor (passive authentication allowed by default): the second app gets its own token
            #expect(dishAfter["outcome"] as? String == "passive", "\(dishAfter)")
            // The Apple TV app stays isolated whatever the MVPDs
            #expect(
                relations.contains {
                    $0["b"] as? String == "com.kidsnet.tv.app" && $0["outcome"] as? String == "isolated"
                })
        }
    }

    // MARK: - Why was I logged out? (#8, #31)

    @Test(arguments: HistoryBackend.allCases) func aSignInPastItsTTLIsNamedAsTheTTLRuleNotALogout(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given News signed in with Optimum, whose authentication TTL is one day
            try await fixture.signIn("news-ios")
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await fixture.waitForApp("news-ios") {
                (($0["callbacks"] as? [[String: Any]]) ?? []).contains { $0["name"] as? String == "setToken" }
            }
            // When a day and a minute pass on the device and the app checks
            fixture.clock.advance(by: 86_400 + 60)
            try await fixture.call("news-ios", "checkAuthentication")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == false }
            // Then the card and the health card name the SDK's TTL rule
            #expect(signIn(try await fixture.app("news-ios"))["state"] as? String == "signedOut")
            #expect(
                (signIn(try await fixture.app("news-ios"))["text"] as? String)?.contains(
                    "SDK storage rule “TTL expired”") == true)
            let found = try await fixture.verdicts(app: "com.example.news.ios", naming: ["ttl_expired"])
            let verdict = try #require(found.first { $0["id"] as? String == "ttl_expired" }, "\(found)")
            #expect(verdict["side"] as? String == "sdkStorage")
            #expect(verdict["rule"] as? String == "TTL expired")
            #expect((verdict["text"] as? String)?.contains("not a logout") == true)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func aStorageEmptiedFromOutsideTheSDKIsNamedAsSuch(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn("news-ios")
            // When the OS wipes the shared storage (the file goes; the SDK records nothing)
            #expect(try fixture.phoneTeamStorage() != nil)
            try FileManager.default.removeItem(
                at: fixture.root.appendingPathComponent("phone/shared/TEAM1234/storage.json"))
            #expect(try fixture.phoneTeamStorage() == nil)
            try await fixture.call("news-ios", "checkAuthentication")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == false }
            let found = try await fixture.verdicts(app: "com.example.news.ios", naming: ["storage_wiped"])
            let verdict = try #require(found.first { $0["id"] as? String == "storage_wiped" }, "\(found)")
            #expect(verdict["side"] as? String == "sdkStorage")
            #expect((verdict["text"] as? String)?.contains("emptied from outside the SDK") == true)
            #expect(!found.contains { $0["id"] as? String == "logged_out_by_app" })
        }
    }

    // MARK: - Not in your package vs throttling (#23)

    @Test(arguments: HistoryBackend.allCases) func aThrottledAuthorizationIsTheBackendThrottlingNotADenial(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            fixture.backend.faults.rules = [
                FaultRule(path: "/adobe-services/1.0/authorizeDevice", status: 429, remaining: 1)
            ]
            try await fixture.signIn()
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await fixture.waitForApp("news-ios") {
                (($0["flow"] as? [String: Any])?["detail"] as? String ?? "").hasPrefix("Authorization of news failed")
            }
            let found = try await fixture.verdicts(app: "com.example.news.ios", naming: ["throttled"])
            let verdict = try #require(found.first { $0["id"] as? String == "throttled" }, "\(found)")
            #expect(verdict["side"] as? String == "backend")
            #expect((verdict["text"] as? String)?.hasPrefix("Backend check “throttled” (HTTP 429)") == true)
            #expect(!found.contains { $0["id"] as? String == "mvpd_denied" })
        }
    }

    // MARK: - Stuck on the login screen (#1, #3)

    @Test(arguments: HistoryBackend.allCases) func aLoginPageLeftOpenIsStuckAndASecondSignInOverItIsNamed(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await started(fixture, "news-ios")
            try await fixture.call("news-ios", "getAuthentication")
            try await fixture.waitForApp("news-ios") { pending($0)["providerDialog"] is [Any] }
            try await fixture.call("news-ios", "setSelectedProvider", ["mvpd": "Dish"])
            try await fixture.waitForApp("news-ios") { pending($0)["loginURL"] is String }
            // When the user leaves it for three minutes and the app starts another sign-in over it
            fixture.clock.advance(by: 180)
            try await fixture.call("news-ios", "getAuthentication")
            let found = try await fixture.verdicts(app: "com.example.news.ios", naming: ["login_never_cancelled"])
            let ids = found.compactMap { $0["id"] as? String }
            #expect(ids.contains("login_never_cancelled"), "\(ids)")
        }
    }
}
