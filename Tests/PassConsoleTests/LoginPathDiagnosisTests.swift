import AccessEnabler
import Foundation
import HistoryTestSupport
import PassBackend
import PassSimulator
import PassStorage
import PassTestSupport
import Testing

@testable import PassConsole

/// Issue #15, the field problems the console could not produce before issue #17 B.1/B.3: each reproduced through the
/// console's own app (the real SDK against the real backend), and the health card asked for the sentence that names
/// the rule and the side.
///
/// - #19 logout under Apple SSO, then signed in again without asking (VSA203, Settings → TV Provider).
/// - #20 signed in to a TV provider, yet the app shows the provider list (N003, N004, no account).
/// - #4 an MVPD that requires SFSafariViewController, shown in the app's web view and refused there.
/// - #33 login finished at the MVPD, but the app says it failed (N130: the token was fetched before the login ended).
/// Sets the TV provider of the console's phone (where News and Sports One run), as Settings → TV Provider would.
private func setPhoneTVProvider(_ setting: TVProviderSetting, _ fixture: ConsoleFixture) throws {
    try setting.save(in: DeviceFolder(root: fixture.root.appendingPathComponent("phone")))
}

@Suite(.serialized)
struct LoginPathDiagnosisTests {
    /// The console's phone, where News and Sports One run.




    @Test(arguments: HistoryBackend.allCases) func aLogoutUnderAppleSSOThenASignInWithoutAskingIsNamedAsSettingsStillSignedIn(history: HistoryBackend) async throws {
        // Given a phone signed in to Spectrum in Settings → TV Provider, and News (REF30: Spectrum has Apple SSO)
        let spectrum = TVProviderSetting.pick(mvpdID: "Spectrum", username: "bob", password: "bob123")
        try await ConsoleFixture.with(history: history) { fixture in
            try setPhoneTVProvider(spectrum, fixture)
            try await fixture.start("news-ios")
            try await fixture.call("news-ios", "getAuthentication")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == true }
            // When the user logs out in the app, and taps sign in again
            try await fixture.call("news-ios", "logout")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == false }
            try await fixture.call("news-ios", "getAuthentication")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == true }
            // Then the health card says why: the Apple TV Provider, not the app or the MVPD
            let found = try await fixture.verdicts(app: "com.example.news.ios", naming: ["apple_sso_logout", "apple_sso_signed_in_again"])
            let logout = try verdict("apple_sso_logout", in: found)
            #expect(logout["side"] as? String == "platform")
            #expect((logout["text"] as? String)?.contains("VSA203") == true)
            #expect((logout["text"] as? String)?.contains("signed in to Spectrum in Settings → TV Provider") == true)
            let again = try verdict("apple_sso_signed_in_again", in: found)
            #expect(again["side"] as? String == "platform")
            #expect(again["rule"] as? String == "Apple SSO session still active in Settings")
            let text = try #require(again["text"] as? String)
            #expect(text.contains("Apple TV Provider “Apple SSO session still active in Settings” with Spectrum"))
            #expect(text.contains("no provider list and no login page"))
        }
    }

    @Test(arguments: HistoryBackend.allCases) func aRelaunchAfterALogoutUnderAppleSSOThatSignsInByItselfIsNamedInTheNewRun(history: HistoryBackend) async throws {
        let spectrum = TVProviderSetting.pick(mvpdID: "Spectrum", username: "bob", password: "bob123")
        try await ConsoleFixture.with(history: history) { fixture in
            // Given News signed in through Apple SSO, logged out (VSA203), and quit
            try setPhoneTVProvider(spectrum, fixture)
            try await fixture.start("news-ios")
            try await fixture.call("news-ios", "getAuthentication")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == true }
            try await fixture.call("news-ios", "logout")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == false }
            let first = try #require(try await fixture.app("news-ios")["sessionID"] as? String)
            try await fixture.waitUntilRecorded(atLeast: 10)
            #expect(await fixture.post("/api/apps/news-ios/stop").status == 200)
            // When the user launches it again and it signs in without asking (field problem #19, as users report it)
            try await fixture.start("news-ios")
            try await fixture.waitForApp("news-ios") { ($0["sessionID"] as? String).map { $0 != first } ?? false }
            try await fixture.call("news-ios", "getAuthentication")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == true }
            // Then the new run's health card names the earlier run's logout and Settings → TV Provider
            let found = try await fixture.verdicts(app: "com.example.news.ios", naming: ["apple_sso_signed_in_again"])
            let again = try verdict("apple_sso_signed_in_again", in: found)
            #expect(again["side"] as? String == "platform")
            #expect((again["text"] as? String)?.contains("in an earlier run of the app (VSA203)") == true, "\(again)")
            #expect(!found.contains { $0["id"] as? String == "apple_sso_logout" }, "that logout belongs to the earlier run")
        }
    }

    @Test(arguments: HistoryBackend.allCases) func theDevicesTVProviderIsSetThroughTheAPIAndAppsFollowIt(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // When support sets the phone signed in to Spectrum (the demo subscriber, no password given)
            let put = await fixture.send(
                "PUT", "/api/devices/phone/tv-provider", headers: fixture.pageHeaders, body: Data(#"{"choice":"pick:Spectrum"}"#.utf8))
            #expect(put.status == 200, "\(put.text)")
            #expect(put.json["choice"] as? String == "pick:Spectrum")
            #expect(put.json["signsIn"] as? Bool == true && put.json["username"] as? String == "bob")
            #expect(!put.text.contains("bob123"), "the password is never answered")
            #expect(await fixture.get("/api/devices/phone/tv-provider").json["choice"] as? String == "pick:Spectrum")
            #expect(await fixture.get("/api/audit").text.contains("Set the Apple TV Provider of phone to pick:Spectrum (signs in as bob)"))
            // Then News signs in through the Apple dialog, with no picker and no login page
            try await fixture.start("news-ios")
            try await fixture.call("news-ios", "getAuthentication")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == true }
            let names = (try await fixture.app("news-ios")["callbacks"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(names.contains("presentTvProviderDialog") && !names.contains("displayProviderDialog") && !names.contains("navigateToUrl"))
            // And bad input is refused with a clear error
            for (body, code) in [(#"{"choice":"maybe"}"#, "invalid_argument"), (#"{"choice":"pick:Nowhere"}"#, "unknown_mvpd")] {
                let refused = await fixture.send(
                    "PUT", "/api/devices/phone/tv-provider", headers: fixture.pageHeaders, body: Data(body.utf8))
                #expect(refused.status == 400 && refused.json["error"] as? String == code, "\(refused.text)")
            }
            #expect(await fixture.get("/api/devices/fridge/tv-provider").status == 404)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func theAppleTVShowsACodeForTheProviderPickedInTheAppleDialog(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given the Apple TV's user picks Spectrum in the Apple dialog (cookbook flow E), and Kids TV (KIDSNET)
            let put = await fixture.send(
                "PUT", "/api/devices/tv/tv-provider", headers: fixture.pageHeaders, body: Data(#"{"choice":"pick:Spectrum"}"#.utf8))
            #expect(put.status == 200, "\(put.text)")
            try await fixture.start("kids-tvos")
            try await fixture.call("kids-tvos", "getAuthentication")
            // Then the TV shows a registration code for Spectrum, with no provider list
            try await fixture.waitForApp("kids-tvos") { (($0["pending"] as? [String: Any])?["regcode"] as? [String: Any])?["code"] is String }
            let app = try await fixture.app("kids-tvos")
            let code = try #require(((app["pending"] as? [String: Any])?["regcode"] as? [String: Any])?["code"] as? String)
            let names = (app["callbacks"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(names.contains("presentTvProviderDialog") && !names.contains("displayProviderDialog"), "\(names)")
            // When someone enters the code on a second screen and signs in with Spectrum
            let web = HeadlessWebView()
            guard case .page(let start) = try await web.load(fixture.backendURL + "/activate"),
                let codeForm = start.forms.first,
                case .page(let providers) = try await web.submit(codeForm, fields: ["code": code]),
                let match = providers.html.firstMatch(of: #/<a class="provider" href="([^"]*)">Spectrum</a>/#),
                let target = URL(string: String(match.output.1).replacingOccurrences(of: "&amp;", with: "&"), relativeTo: providers.url),
                case .page(let login) = try await web.load(target.absoluteString),
                let form = login.forms.first(where: \.hasPasswordField)
            else {
                Issue.record("the activation pages did not lead to Spectrum's login form")
                return
            }
            // Spectrum names its fields IDToken1/IDToken2 (its OAuth page shape): type into the text and password inputs
            _ = try await web.submit(
                form, fields: [form.textInputNames.first ?? "username": "bob", form.passwordInputNames.first ?? "password": "bob123"],
                button: form.buttons.first { $0.value != "cancel" })
            // Then the TV signs in at its next poll (every 10 s)
            try await fixture.waitForApp("kids-tvos", timeout: 60) { $0["authenticated"] as? Bool == true }
        }
    }

    @Test(arguments: HistoryBackend.allCases) func eachFallbackFromTheAppleDialogToTheProviderListNamesItsReason(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.start("news-ios")
            // Not signed in to any TV provider (the default), then "Other TV Provider", then a provider without SSO
            let settings: [TVProviderSetting] = [
                .none, .other, .pick(mvpdID: "Dish", username: "carol", password: "carol123"), .denied,
            ]
            for (round, setting) in settings.enumerated() {
                try setPhoneTVProvider(setting, fixture)
                try await fixture.call("news-ios", "getAuthentication")
                try await fixture.waitForApp("news-ios") { app in
                    hasPendingProviders(app)
                        && ((app["callbacks"] as? [[String: Any]]) ?? []).filter { $0["name"] as? String == "displayProviderDialog" }
                            .count > round
                }
            }
            let found = try await fixture.verdicts(app: "com.example.news.ios",
                naming: ["apple_sso_fallback", "apple_sso_fallback", "apple_sso_fallback", "apple_sso_fallback"])
            let fallbacks = found.filter { $0["id"] as? String == "apple_sso_fallback" }
            #expect(fallbacks.map { $0["rule"] as? String } == [
                "no TV provider account", "Other TV Provider chosen", "provider not enabled for SSO",
                "TV Provider permission denied",
            ], "\(found)")
            #expect(fallbacks.allSatisfy { $0["side"] as? String == "platform" })
            #expect((fallbacks[0]["text"] as? String)?.contains("not signed in to any TV provider") == true)
            #expect((fallbacks[1]["text"] as? String)?.contains("(N003)") == true)
            #expect((fallbacks[2]["text"] as? String)?.contains("Dish is not supported by REF30 for single sign-on") == true)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func anMVPDThatRequiresSafariShownInTheAppsWebViewIsNamedAsTheMVPDsRuleAndTheAppsFix(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given DISH requires SFSafariViewController and refuses embedded web views; News does not set handleSVC
            fixture.backend.faults = FaultSettings(
                mvpdOverrides: ["Dish": MVPDOverride(requiresSVC: true)], refuseEmbeddedBrowsers: ["Dish"])
            try await fixture.start("news-ios")
            try await fixture.call("news-ios", "getAuthentication")
            try await fixture.waitForApp("news-ios") { hasPendingProviders($0) }
            try await fixture.call("news-ios", "setSelectedProvider", ["mvpd": "Dish"])
            try await fixture.waitForApp("news-ios") { (($0["pending"] as? [String: Any])?["loginURL"]) is String }
            // When the user signs in on the page the app's web view shows: DISH refuses the embedded browser
            let login = await fixture.post("/api/apps/news-ios/login", json: #"{"username":"carol","password":"carol123"}"#)
            #expect(login.status == 422, "\(login.text)")
            #expect(login.text.contains("embedded browser"))
            // Then the health card names DISH's rule, and what the app must do
            let found = try await fixture.verdicts(app: "com.example.news.ios", naming: ["svc_not_presented"])
            let verdict = try verdict("svc_not_presented", in: found)
            #expect(verdict["side"] as? String == "mvpd")
            #expect(verdict["rule"] as? String == "requires SFSafariViewController")
            let text = try #require(verdict["text"] as? String)
            #expect(text.contains("MVPD decision “requires SFSafariViewController” (useSVC): Dish"))
            #expect(text.contains("did not set the handleSVC option"))
            #expect(text.contains("navigateToUrl:useSVC:"))
        }
    }

    @Test(arguments: HistoryBackend.allCases) func aTokenFetchedBeforeTheLoginEndedIsNamedAsTheBackendsSessionCheckN130(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.start("news-ios")
            try await fixture.call("news-ios", "getAuthentication")
            try await fixture.waitForApp("news-ios") { hasPendingProviders($0) }
            try await fixture.call("news-ios", "setSelectedProvider", ["mvpd": "Dish"])
            try await fixture.waitForApp("news-ios") { (($0["pending"] as? [String: Any])?["loginURL"]) is String }
            let app = try await fixture.app("news-ios")
            let loginURL = try #require((app["pending"] as? [String: Any])?["loginURL"] as? String)
            // When the app hands the SDK the redirect URL before the login page has ended
            try await fixture.call("news-ios", "handleExternalURL", ["url": "adobepass://ios.app"])
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == false }
            // and the user then finishes signing in at the MVPD (the login itself succeeds)
            let end = try await HeadlessWebView().signIn(at: loginURL, username: "carol", password: "carol123")
            #expect(end.hasPrefix("adobepass://ios.app"))
            #expect(fixture.backend.signIns.contains { $0.mvpdID == "Dish" && $0.username == "carol" })
            // Then the health card names the backend's session check and N130, not a logout or the MVPD
            let found = try await fixture.verdicts(app: "com.example.news.ios", naming: ["token_not_on_session"])
            let verdict = try verdict("token_not_on_session", in: found)
            #expect(verdict["side"] as? String == "backend")
            #expect(verdict["rule"] as? String == "no server session for this token")
            let text = try #require(verdict["text"] as? String)
            #expect(text.contains("(N130)"))
            #expect(text.contains("Backend check “no server session for this token” (session_unknown)"))
            #expect(text.contains("called handleExternalURL before the MVPD's login page had ended"))
            #expect(!found.contains { ["mvpd_denied", "server_session_gone"].contains($0["id"] as? String ?? "") })
        }
    }
}

/// Whether the app's SDK picker waits for a choice.
private func hasPendingProviders(_ app: [String: Any]) -> Bool {
    ((app["pending"] as? [String: Any])?["providerDialog"]) is [Any]
}

/// The verdict `id` among `found`, or a recorded issue listing them all.
private func verdict(_ id: String, in found: [[String: Any]]) throws -> [String: Any] {
    try #require(found.first { $0["id"] as? String == id }, "no \(id) in \(found)")
}
