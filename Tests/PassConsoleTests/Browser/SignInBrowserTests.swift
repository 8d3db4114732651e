import Foundation
import PassConsole
import PassHistory
import PassTestSupport
import Testing

/// Named operators in a real headless Chromium: the page asks for a token, and once signed in its header says who.
@Suite(.serialized, .enabled(if: WebDriver.isAvailable, "needs chromium and chromium-driver (make test installs them)"))
struct SignInBrowserTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func thePageAsksForAPersonalTokenAndShowsWhoIsSignedIn() async throws {
        try await ConsoleFixture.with { fixture in
            let token = OperatorToken.generate()
            try await fixture.console.history.addOperator(
                OperatorRecord(name: "vera", role: .viewer, tokenHash: OperatorToken.hash(token), createdAt: Date()))
            try fixture.console.start()
            let browser = try await WebDriver.start()
            do {
                try await browser.open(fixture.console.baseURL + "/#/audit")
                try await browser.waitFor("#sign-in-token")
                #expect(try await browser.text("#banner")?.contains("named operators") == true)
                try await browser.type("#sign-in-token", token)
                try await browser.click("#sign-in button[type=submit]")
                try await browser.waitUntil("signed in as vera", "return document.getElementById('ctx-operator').innerText.includes('vera');")
                #expect(try await browser.text("#ctx-operator")?.contains("Signed in as vera (viewer)") == true)
                #expect(try await browser.run("return document.getElementById('banner').hidden;") as? Bool == true)
                await browser.saveScreenshot("signed-in-as-viewer", root: Self.repository)
                await browser.quit()
            } catch {
                await browser.saveScreenshot("failure-sign-in", root: Self.repository)
                await browser.quit()
                throw error
            }
        }
    }
}
