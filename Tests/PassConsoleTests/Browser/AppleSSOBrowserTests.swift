import AccessEnabler
import Foundation
import PassTestSupport
import Testing

@testable import PassConsole

/// Issue #17 B.1 in a real headless Chromium: support sets the phone's Apple TV Provider on the Devices page, News
/// then signs in through the Apple dialog, and after a logout and a sign-in again the health card names the Apple TV
/// Provider as the side (field problem #19). Part of the serialized browser suite.
extension ConsoleBrowserTests {
    @Test func thePhonesTVProviderIsSetOnTheDevicesPageAndTheHealthCardNamesAppleSSO() async throws {
        try await withBrowser { fixture, browser in
            // Given the Devices page
            try await browser.open(fixture.console.baseURL + "/#/devices")
            try await browser.waitUntil(
                "the phone's TV provider form",
                "return !!document.querySelector('#tvp-phone option[value=\"pick:Spectrum\"]');")
            // When support picks "Signed in to Spectrum" for the phone and sets it
            _ = try await browser.run("document.querySelector('#tvp-phone').value = 'pick:Spectrum';")
            try await browser.click(#"form:has(#tvp-phone) button[data-action="tv-provider"]"#)
            try await browser.waitUntil(
                "the setting confirmed",
                "return (document.querySelector('form:has(#tvp-phone) [role=status]')?.textContent ?? '').includes('signs in as bob');")
            #expect(await fixture.get("/api/devices/phone/tv-provider").json["choice"] as? String == "pick:Spectrum")
            // Then News signs in without a login page, logs out (VSA203), and signs in again without asking
            try await fixture.start("news-ios")
            try await fixture.call("news-ios", "getAuthentication")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == true }
            try await fixture.call("news-ios", "logout")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == false }
            try await fixture.call("news-ios", "getAuthentication")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == true }
            try await fixture.waitUntilRecorded(atLeast: 10)
            let sessionID = try #require(try await fixture.app("news-ios")["sessionID"] as? String)
            // And the session's health card says so, labelled with the Apple TV Provider
            try await browser.open(fixture.console.baseURL + "/#/sessions/\(sessionID)")
            let verdict = #"#health-card li[data-verdict="apple_sso_signed_in_again"]"#
            try await browser.waitFor(verdict)
            #expect(try await browser.text(verdict + " .verdict-side") == "Apple TV Provider")
            #expect(try await browser.text(verdict)?.contains("Apple SSO session still active in Settings") == true)
            await browser.saveScreenshot("apple-sso-health-signed-in-again", root: Self.repository)
        }
    }
}
