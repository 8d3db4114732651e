import Foundation
import PassTestSupport
import Testing
@testable import PassConsole

/// Issue #27 item 15: the console's pages carry a Content-Security-Policy, and the pages still work under it: every
/// tab renders, live rows and copying text included, without one violation reported by the browser.
@Suite(.serialized, .enabled(if: WebDriver.isAvailable, "needs chromium and chromium-driver (make test installs them)"))
struct PagePolicyBrowserTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Installed before any of the page's scripts on every document: each violation the browser reports (a blocked
    /// script, style, connection or image) is kept in the tab's session storage, across reloads.
    static let recorder = """
        document.addEventListener('securitypolicyviolation', (e) => {
          const seen = JSON.parse(sessionStorage.getItem('policyViolations') || '[]');
          seen.push(`${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} in ${e.sourceFile || e.documentURI}:${e.lineNumber}`);
          sessionStorage.setItem('policyViolations', JSON.stringify(seen));
        });
        """

    static func violations(_ browser: WebDriver) async throws -> [String] {
        let text = try await browser.run("return sessionStorage.getItem('policyViolations') || '[]';") as? String ?? "[]"
        return try JSONDecoder().decode([String].self, from: Data(text.utf8))
    }

    @Test func everyTabWorksUnderThePolicyWithoutAViolation() async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            let browser = try await WebDriver.start()
            do {
                try await browser.devTools("Page.addScriptToEvaluateOnNewDocument", ["source": Self.recorder])
                // Events to show: a signed-in app's flow
                try await fixture.signIn()
                try await fixture.waitForEvents(atLeast: 10)
                try await browser.open(fixture.console.baseURL + "/#/flows")
                try await browser.waitFor(#"[data-app-id="news-ios"]"#)
                for tab in ["tokens", "devices", "events", "network", "sessions", "migration", "audit", "flows"] {
                    try await browser.click(#"a[data-tab="\#(tab)"]"#)
                    try await browser.waitUntil("the \(tab) page drawn",
                        "return location.hash.startsWith('#/' + arguments[0]) && !document.querySelector('#main').innerText.includes('Loading the console');",
                        [tab])
                }
                // The events table's live rows (its scroller is styled by script)
                try await browser.click(#"a[data-tab="events"]"#)
                try await browser.waitFor("#events-table tr[data-event-id]")
                #expect(try await browser.run("return document.querySelector('.table-scroll').style.overflowAnchor;") as? String == "none")
                // A page that does not exist, and the fallback copy (a styled text area, as over plain HTTP beyond loopback)
                try await browser.open(fixture.console.baseURL + "/#/no-such-page")
                try await browser.waitFor("#main")
                let copied = try await browser.run("""
                    Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true });
                    return import('/lib/dom.js').then((dom) => dom.copyText('x')).then(() => 'tried');
                    """)
                #expect(copied as? String == "tried")
                let seen = try await Self.violations(browser)
                #expect(seen.isEmpty, "\(seen)")
                await browser.quit()
            } catch {
                await browser.saveScreenshot("failure-policy-\(UUID().uuidString.prefix(8))", root: Self.repository)
                await browser.quit()
                throw error
            }
        }
    }

    /// The recorder itself: an inline style attribute is reported (so an empty list means something).
    @Test func theRecorderSeesAViolation() async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            let browser = try await WebDriver.start()
            do {
                try await browser.devTools("Page.addScriptToEvaluateOnNewDocument", ["source": Self.recorder])
                try await browser.open(fixture.console.baseURL + "/#/flows")
                try await browser.waitFor("#main")
                try await browser.run("document.body.insertAdjacentHTML('beforeend', '<p style=\"color:red\">x</p>');")
                try await browser.waitUntil("the violation recorded",
                    "return (sessionStorage.getItem('policyViolations') || '').includes('style-src');")
                await browser.quit()
            } catch {
                await browser.quit()
                throw error
            }
        }
    }
}
