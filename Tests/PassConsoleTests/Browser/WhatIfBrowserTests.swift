import AccessEnabler
import Foundation
import PassSimulator
import PassStorage
import PassTestSupport
import Testing

@testable import PassConsole

/// Issue #17 B.4 in a real headless Chromium: the Devices page's what-if answers the SSO tech note's rows from the
/// form — the AccessEnabler release picked, and an iOS version typed in (an upgrade to 10 says the pasteboard is
/// erased). Part of the serialized browser suite.
extension ConsoleBrowserTests {
    /// Fills the what-if form and waits for its answer to name `bundleID`'s relation with News.
    func predict(_ browser: WebDriver, bundleID: String, team: String, release: String, os: String) async throws -> String? {
        _ = try await browser.run(
            """
            const set = (id, v) => { const e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event('input')); };
            set('whatif-bundle', arguments[0]); set('whatif-team', arguments[1]); set('whatif-release', arguments[2]);
            set('whatif-os', arguments[3]);
            document.getElementById('whatif-result').textContent = '';
            """, [bundleID, team, release, os])
        try await browser.click(#"button[data-action="whatif"]"#)
        let news = #"#whatif-result ul.relations li"#
        try await browser.waitUntil("the what-if answer", "return !!document.querySelector(arguments[0]);", [news])
        return try await browser.run(
            "return [...document.querySelectorAll(arguments[0])].find(li => li.innerText.includes('com.example.news.ios'))?.dataset.outcome ?? null;",
            [news]) as? String
    }

    @Test func theWhatIfFormAnswersEachRowOfTheTechNote() async throws {
        try await withBrowser { fixture, browser in
            _ = try DeviceProfile.loadOrCreate(
                in: DeviceFolder(root: fixture.root.appendingPathComponent("phone")), platform: .iOS, osVersion: "9.3.5")
            try await browser.open(fixture.console.baseURL + "/#/devices")
            try await browser.waitFor("#whatif-bundle")
            #expect(try await predict(browser, bundleID: "com.example.weather.app", team: "TEAM1234", release: "1.8", os: "") == "sharedStorageReauth")
            #expect(try await predict(browser, bundleID: "com.example.news.weather", team: "TEAM1234", release: "1.8", os: "") == "sso")
            #expect(try await predict(browser, bundleID: "org.acme.sports.ios", team: "ACME5678", release: "1.8", os: "") == "isolated")
            #expect(try await predict(browser, bundleID: "org.acme.sports.ios", team: "ACME5678", release: "1.8", os: "6.1") == "sso")
            #expect(try await browser.text(#"#whatif-result [data-storage]"#) == "every app")
            // The upgrade to iOS 10: said first, in words
            _ = try await predict(browser, bundleID: "com.example.news.weather", team: "TEAM1234", release: "1.7", os: "10.0")
            let upgrade = try #require(try await browser.text(#"#whatif-result [data-upgrade]"#))
            #expect(upgrade.contains("erases the pasteboard: every app signs in again"), "\(upgrade)")
            _ = try await browser.run("document.getElementById('whatif-heading').scrollIntoView({block: 'start'});")
            await browser.saveScreenshot("whatif-ios10-upgrade", root: Self.repository)
        }
    }
}
