import AccessEnabler
import Foundation
import PassBackend
import PassTestSupport
import Testing

@testable import PassConsole

/// Issue #15 item 2 in a real headless Chromium: a Flows card follows the storage it reads, and the health card names
/// the backend's check when a token issued to another Programmer is refused (an SSO copy of a DISH token after DISH
/// switched to authentication per requestor, issue #17 B.0). Part of the serialized browser suite.
extension ConsoleBrowserTests {
    static let sportsCard = #"[data-app-id="sports-ios"]"#

    /// The sign-in state the card shows (`signedIn`, `deviceOnly`, `signedOut`).
    static let cardSignIn = "return document.querySelector(arguments[0] + ' .sign-in')?.dataset.signIn ?? null;"
    static func cardSignIn(is state: String) -> String {
        "return document.querySelector(arguments[0] + ' .sign-in')?.dataset.signIn === '\(state)';"
    }

    @Test func aLogoutInNewsTurnsTheOpenSportsOneCardToSignedOut() async throws {
        try await withBrowser { fixture, browser in
            // Given News signed in with Optimum and Sports One signed in by passive authentication, on the Flows page
            try await fixture.signIn("news-ios")
            #expect(await fixture.post("/api/apps/sports-ios/start").status == 200)
            try await fixture.waitForApp("sports-ios") {
                (($0["signIn"] as? [String: Any])?["state"] as? String) == "signedIn"
            }
            try await fixture.call("sports-ios", "checkAuthentication")
            try await fixture.waitForApp("sports-ios") { $0["authenticated"] as? Bool == true }
            try await browser.open(fixture.console.baseURL + "/#/flows")
            try await browser.waitUntil("Sports One signed in", Self.cardSignIn(is: "signedIn"), [Self.sportsCard])
            #expect(try await browser.text(Self.sportsCard + " .sign-in")?.contains("Signed in") == true)
            // When News logs out (from its card, as a person would)
            try await browser.click(#"[data-app-id="news-ios"] button[data-action="logout"]"#)
            // Then the open Sports One card turns to "Not signed in" by itself, and says the app has not noticed yet
            try await browser.waitUntil("Sports One signed out", Self.cardSignIn(is: "signedOut"), [Self.sportsCard])
            #expect(try await browser.text(Self.sportsCard + " .sign-in")?.contains("Not signed in") == true)
            #expect(try await browser.text(Self.sportsCard + " .sign-in-text")?.contains("App state stale") == true)
            await browser.saveScreenshot("truth-sports-card-signed-out-after-news-logout", root: Self.repository)
        }
    }

    @Test func theTokensGridFlagsASignInCopiedFromAnotherProgrammerThatTheBackendRefuses() async throws {
        try await withBrowser { fixture, browser in
            // Given News signed in with Dish, and Sports One's SDK holding a silent SSO copy of that token
            try await fixture.signIn("news-ios", mvpd: "Dish", user: "carol", password: "carol123")
            try await fixture.start("sports-ios")
            try await fixture.call("sports-ios", "checkAuthentication")
            try await fixture.waitForApp("sports-ios") { $0["authenticated"] as? Bool == true }
            // When the Tokens page shows the team's storage, the copy is accepted: DISH signs in once for every
            // Programmer (issue #17 B.0)
            try await browser.open(fixture.console.baseURL + "/#/tokens")
            let copy = #"[data-domain="phone/team:TEAM1234"][data-requestor="SPORTS1"][data-mvpd="Dish"] .token[data-token-kind="authn"]"#
            try await browser.waitFor(copy + #" .verdict[data-rule="requestor"][data-ok="true"]"#)
            #expect(try await browser.count(copy + #"[data-valid="true"]"#) == 1)
            // When DISH switches to authentication per requestor on the service, and the page is read again
            fixture.backend.faults.mvpdOverrides["Dish"] = MVPDOverride(authPerRequestor: true)
            try await browser.open("about:blank")
            try await browser.open(fixture.console.baseURL + "/#/tokens")
            // Then Sports One's copy is flagged with the backend's check, and News's own sign-in is not
            let refused = copy + #" .verdict[data-rule="requestor"][data-ok="false"]"#
            try await browser.waitFor(refused)
            #expect(try await browser.text(refused)?.contains("token_requestor_mismatch") == true)
            #expect(try await browser.text(copy + " .token-head")?.contains("refused by the backend") == true)
            let own = #"[data-domain="phone/team:TEAM1234"][data-requestor="REF30"][data-mvpd="Dish"] .token[data-token-kind="authn"]"#
            #expect(try await browser.count(own + #"[data-valid="true"]"#) == 1)
            await browser.saveScreenshot("truth-tokens-copied-sign-in", root: Self.repository)
        }
    }

    @Test func aTokenOfAnotherProgrammerShowsTheBackendsCheckAndNoSignedInCard() async throws {
        try await withBrowser { fixture, browser in
            // Given News signed in with Dish, and Sports One told "1" after the SDK copied News's token
            try await fixture.signIn("news-ios", mvpd: "Dish", user: "carol", password: "carol123")
            #expect(await fixture.post("/api/apps/sports-ios/start").status == 200)
            try await fixture.waitForApp("sports-ios") {
                (($0["callbacks"] as? [[String: Any]]) ?? []).contains {
                    $0["name"] as? String == "setRequestorComplete"
                }
            }
            try await fixture.call("sports-ios", "checkAuthentication")
            try await fixture.waitForApp("sports-ios") { $0["authenticated"] as? Bool == true }
            // And DISH switched to authentication per requestor on the service after Sports One's setRequestor
            fixture.backend.faults.mvpdOverrides["Dish"] = MVPDOverride(authPerRequestor: true)
            // When Sports One asks for an authorization and the backend refuses the token
            try await fixture.call("sports-ios", "getAuthorization", ["resource": "sports"])
            try await fixture.waitForApp("sports-ios") {
                (($0["flow"] as? [String: Any])?["detail"] as? String ?? "").hasPrefix("Authorization of sports failed")
            }
            // Then its Flows card does not say "✓ Signed in" (the SDK cleared the refused copy; passive
            // authentication gets a DISH sign-in of its own at its next setRequestor)
            try await browser.open(fixture.console.baseURL + "/#/flows")
            try await browser.waitFor(Self.sportsCard + " .sign-in")
            let state = try await browser.run(Self.cardSignIn, [Self.sportsCard]) as? String
            #expect(state == "signedOut", "\(state ?? "nil")")
            #expect(try await browser.text(Self.sportsCard + " .sign-in")?.contains("✓") == false)
            await browser.saveScreenshot("truth-sports-card-other-programmer", root: Self.repository)
            // And its session's health card names the backend's check, on the backend's side
            try await fixture.waitUntilRecorded(atLeast: 20)
            let sessionID = try #require(try await fixture.app("sports-ios")["sessionID"] as? String)
            try await browser.open(fixture.console.baseURL + "/#/sessions/\(sessionID)")
            let verdict = #"#health-card li[data-verdict="token_other_programmer"]"#
            try await browser.waitFor(verdict)
            #expect(try await browser.text(verdict + " .verdict-side") == "Backend check")
            let text = try #require(try await browser.text(verdict))
            #expect(text.contains("token issued to another Programmer"))
            #expect(text.contains("The token was issued to Programmer REF30, not to SPORTS1."))
            #expect(!text.contains("logged the user out"))
            #expect(try await browser.count(#"#health-card li[data-verdict="server_session_gone"]"#) == 0)
            await browser.saveScreenshot("truth-health-other-programmer", root: Self.repository)
            // And the Devices page, from the same rules and the service's configuration now: Dish signs in per
            // Programmer with passive authentication, so single sign-on for the pair goes through passive authentication
            try await browser.open(fixture.console.baseURL + "/#/devices")
            let pair = #"ul.relations li[data-outcome="sso"]"#
            try await browser.waitFor(pair + #" li[data-mvpd="Dish"]"#)
            #expect(try await browser.count(pair + #" li[data-mvpd="Dish"][data-path="passive"]"#) == 1)
            #expect(try await browser.count(pair + #" li[data-mvpd="Cablevision"][data-path="passive"]"#) == 1)
            await browser.saveScreenshot("truth-devices-sso-per-mvpd", root: Self.repository)
        }
    }
}
