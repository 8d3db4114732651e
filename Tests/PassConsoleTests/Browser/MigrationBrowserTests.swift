import Foundation
@testable import PassConsole
import PassTestSupport
import Testing

/// Issue #26 part 3 in a real headless Chromium: a team migrating to REST API v2 opens the Migration page and reads,
/// for its app, the old SDK calls its sessions still make and the v2 call that replaces each.
extension ConsoleBrowserTests {
    @Test func theMigrationPageListsAnSDKAppsOldCallsWithTheirV2Replacements() async throws {
        try await withBrowser { fixture, browser in
            // Given the News app on the seeds' SDK, signed in and authorized
            try await fixture.start("news-ios")
            try await fixture.signIn("news-ios")
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            let bundleID = try #require(fixture.console.apps.first { $0.spec.id == "news-ios" }?.spec.app.bundleID)
            // When the person opens the Migration page
            try await browser.open(fixture.console.baseURL + "/#/migration")
            // Then the app's card lists authorizeDevice with its REST API v2 replacement
            let card = "#migration-apps section[data-app=\"\(bundleID)\"]"
            try await browser.waitUntil("the app's old authorizeDevice call listed",
                "return [...document.querySelectorAll(arguments[0] + ' tbody tr')].some(r => r.textContent.includes('authorizeDevice'));", [card])
            let rows = try await browser.text(card + " tbody") ?? ""
            #expect(rows.contains("POST /api/v2/{sp}/decisions/authorize/{mvpd}"), "\(rows)")
            #expect(try await browser.text(card + " p")?.contains("still made legacy calls") == true)
        }
    }
}
