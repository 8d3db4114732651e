import AccessEnabler
import Foundation
import PassStorage
import PassTestSupport
import Testing

/// Reversible means reversible, in a real headless Chromium: Undo after an app stored a newer token keeps it and
/// says so (and so does the audit); an import preview warns, before anything changes, about tokens the target device
/// will refuse. Screenshots go to `artifacts/ui/`.
@Suite(.serialized, .enabled(if: WebDriver.isAvailable, "needs chromium and chromium-driver (make test installs them)"))
struct ReversibleBrowserTests {
    static let repository = ConsoleBrowserTests.repository
    static let team = "phone/team:TEAM1234"
    static let tv = "tv/app:com.kidsnet.tv.app"
    static let ref30 = #"[data-domain="phone/team:TEAM1234"][data-requestor="REF30"][data-mvpd="Dish"]"#

    func teamStorage(_ fixture: ConsoleFixture) throws -> TokenStorage {
        _ = try fixture.phoneTeamStorage()
        return try TokenStore(file: DeviceFolder(root: fixture.root.appendingPathComponent("phone")).teamShared(teamID: "TEAM1234"), domain: "t").load()
    }

    @Test func undoAfterSportsOneStoredANewerTokenKeepsItAndTheToastAndAuditSaySo() async throws {
        try await ConsoleBrowserTests().withBrowser { fixture, browser in
            // Given Sports One signed in with DISH, and News signed in by single sign-on from it (the shared storage)
            try await fixture.signIn("sports-ios", mvpd: "Dish", user: "carol", password: "carol123")
            try await fixture.start("news-ios")
            try await fixture.call("news-ios", "checkAuthentication")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == true }
            try await browser.open(fixture.console.baseURL + "/#/tokens")
            try await browser.waitFor(Self.ref30)
            // When support clears REF30 from the page
            try await browser.click(#"button[data-action="clear-programmer"][data-clear-domain="phone/team:TEAM1234"][data-clear-requestor="REF30"]"#)
            try await browser.waitFor("dialog#confirm-dialog[open]")
            try await browser.click(#"dialog#confirm-dialog button[data-action="confirm"]"#)
            try await browser.waitUntil("the REF30 cell to go", "return document.querySelector(arguments[0]) === null;", [Self.ref30])
            // and Sports One obtains a new `news` authorization before Undo is pressed
            try await fixture.call("sports-ios", "getAuthorization", ["resource": "news"])
            let deadline = Date().addingTimeInterval(20)
            while try teamStorage(fixture).bucket(requestor: "SPORTS1", mvpd: "Dish")?.authzTokens["news"] == nil, Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let newer = try #require(try teamStorage(fixture).bucket(requestor: "SPORTS1", mvpd: "Dish")?.authzTokens["news"])
            try await browser.click(#"#undo-toast button[data-action="undo"]"#)
            // Then REF30 is back, the newer token is kept, and the toast says what was kept and why
            try await browser.waitFor("#undone-toast")
            let toast = try await browser.text("#undone-toast") ?? ""
            #expect(toast.contains("kept"))
            #expect(toast.contains("authorization token for news (SPORTS1 / Dish)"))
            #expect(toast.contains("added after the change"))
            try await browser.waitFor(Self.ref30)
            #expect(try teamStorage(fixture).bucket(requestor: "SPORTS1", mvpd: "Dish")?.authzTokens["news"] == newer)
            await browser.saveScreenshot("undo-keeps-newer-token", root: Self.repository)
            // And the audit log says the same
            try await browser.open(fixture.console.baseURL + "/#/audit")
            try await browser.waitUntil("the undo's audit entry",
                "return [...document.querySelectorAll('[data-audit-id]')].some(r => r.innerText.includes('kept 1: authorization token for news (SPORTS1 / Dish)'));")
            await browser.saveScreenshot("undo-audit", root: Self.repository)
        }
    }

    @Test func theImportPreviewWarnsThatTheTVAppWillRefuseThePhonesTokensAndChangesNothing() async throws {
        try await ConsoleBrowserTests().withBrowser { fixture, browser in
            // Given the phone's live export
            try await fixture.signIn()
            let export = await fixture.get("/api/storage/export?domain=\(Self.team)&reveal=true").body
            let file = fixture.root.appendingPathComponent("phone-live.json")
            try export.write(to: file)
            let tvFile = try DeviceFolder(root: fixture.root.appendingPathComponent("tv")).appPrivate(bundleID: "com.kidsnet.tv.app")
            let before = try tvFile.read()
            // When it is chosen for the Apple TV app's storage
            try await browser.open(fixture.console.baseURL + "/#/tokens")
            try await browser.waitUntil("the import domain list",
                "return [...document.querySelectorAll('#import-domain option')].some(o => o.value === arguments[0]);", [Self.tv])
            try await browser.run("const s = document.querySelector('#import-domain'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));", [Self.tv])
            try await browser.chooseFile("#import-file", path: file.path)
            // Then each token says the TV app will refuse it and why, they are left out, and nothing can be applied
            try await browser.waitFor(#"#import-preview tr[data-refused-by="device"]"#)
            #expect(try await browser.count(#"#import-preview tr[data-action-kind="refused"]"#) == 1)
            let row = try await browser.text(#"#import-preview tr[data-refused-by="device"]"#) ?? ""
            #expect(row.contains("will be refused: bound to another device ID; com.kidsnet.tv.app removes it at the next setRequestor"))
            #expect(try await browser.text("#import-refusals")?.contains("left out") == true)
            #expect(try await browser.run("return document.querySelector('[data-action=\"apply-import\"]').disabled;") as? Bool == true)
            #expect(try tvFile.read() == before)
            _ = try await browser.run("document.querySelector('#import-preview').scrollIntoView()")
            await browser.saveScreenshot("import-refused-device", root: Self.repository)
            // Ticking "import refused tokens too" offers to import them, still flagged
            try await browser.click("#import-include-refused")
            try await browser.waitFor(#"#import-preview tr[data-action-kind="added"][data-refused-by="device"]"#)
            #expect(try await browser.run("return document.querySelector('[data-action=\"apply-import\"]').disabled;") as? Bool == false)
            #expect(try tvFile.read() == before)
        }
    }

    @Test func aReplayThatCannotTellWhoSignedInAsksWithAPickerAndRunsAsThePickedSubscriber() async throws {
        try await ConsoleBrowserTests().withBrowser { fixture, browser in
            // Given one run that signed in at DISH as dave, then as carol
            try await fixture.signIn(mvpd: "Dish", user: "dave", password: "dave123")
            try await ReplayAPITests().signInAgain(fixture, mvpd: "Dish", user: "carol")
            let id = try #require(try await fixture.app("news-ios")["sessionID"] as? String)
            try await fixture.waitUntilRecorded(atLeast: 20)
            // When support presses Replay
            try await browser.open(fixture.console.baseURL + "/#/sessions/\(id)")
            try await browser.waitFor("#replay-card [data-action=replay]")
            try await browser.click("#replay-card [data-action=replay]")
            // Then the page asks who to sign in as at DISH instead of picking someone
            try await browser.waitFor("#replay-question select[data-replay-mvpd=Dish]")
            #expect(try await browser.run("return [...document.querySelectorAll('#replay-question option')].map(o => o.value).filter(Boolean);") as? [String] == ["carol", "dave"])
            _ = try await browser.run("document.querySelector('#replay-question').scrollIntoView({block: 'center'})")
            await browser.saveScreenshot("replay-asks-subscriber", root: Self.repository)
            // And with dave picked, the replay runs as dave
            try await browser.run("const s = document.querySelector('#replay-question select'); s.value = 'dave'; s.dispatchEvent(new Event('change'));")
            try await browser.click("#replay-question [data-action=replay-as-picked]")
            try await browser.waitFor("#replay-card [data-action=open-replay]", timeout: 30)
            #expect(try await browser.text("#replay-card .replay-result")?.contains("dave (picked for Dish)") == true)
        }
    }
}
