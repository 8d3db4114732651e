import Foundation
import PassTestSupport
import Testing

/// The small things a person notices, in a real headless Chromium: toasts that fade, go with the page and with a
/// later success, an address that names no page, a JSON array offered as a storage file, and a confirmation after an
/// export that says what personal data it left out.
@Suite(.serialized, .enabled(if: WebDriver.isAvailable, "needs chromium and chromium-driver (make test installs them)"))
struct FeedbackBrowserTests {
    static let repository = ConsoleBrowserTests.repository
    static let card = #"[data-app-id="news-ios"]"#
    static let loginError = #"#toasts .toast-error[data-toast-action="POST /api/apps/news-ios/login"]"#

    /// `1,234`, as the page writes counts.
    static func grouped(_ count: Int) -> String {
        let digits = Array(String(count))
        return String(digits.enumerated().flatMap { index, digit in
            index > 0 && (digits.count - index) % 3 == 0 ? [",", digit] : [digit]
        })
    }

    func withBrowser(_ body: (ConsoleFixture, WebDriver) async throws -> Void) async throws {
        try await ConsoleBrowserTests().withBrowser(body)
    }

    /// Types a password into the News card's login form and submits it.
    func signIn(_ browser: WebDriver, password: String) async throws {
        try await browser.run("document.querySelector(arguments[0]).value = '';", [Self.card + #" input[data-field="username"]"#])
        try await browser.run("document.querySelector(arguments[0]).value = '';", [Self.card + #" input[data-field="password"]"#])
        try await browser.type(Self.card + #" input[data-field="username"]"#, "alice")
        try await browser.type(Self.card + #" input[data-field="password"]"#, password)
        try await browser.click(Self.card + #" button[data-action="login"]"#)
    }

    @Test func anErrorToastCanBeDismissedGoesWithThePageAndWithALaterSuccessAndFadesAfterInfoToasts() async throws {
        try await withBrowser { fixture, browser in
            // Given News waiting at Optimum's login page, shown in its card
            let started = await fixture.post("/api/apps/news-ios/start")
            try #require(started.status == 200)
            try await fixture.waitForApp("news-ios") { (($0["callbacks"] as? [[String: Any]]) ?? []).contains { $0["name"] as? String == "setRequestorComplete" } }
            try await fixture.call("news-ios", "getAuthentication")
            try await fixture.waitForApp("news-ios") { pending($0)["providerDialog"] is [Any] }
            try await fixture.call("news-ios", "setSelectedProvider", ["mvpd": "Cablevision"])
            try await fixture.waitForApp("news-ios") { pending($0)["loginURL"] is String }
            try await browser.open(fixture.console.baseURL + "/#/flows")
            try await browser.waitFor(Self.card + #" input[data-field="password"]"#)

            // A wrong password: an error toast, which × dismisses at once
            try await signIn(browser, password: "wrong")
            try await browser.waitFor(Self.loginError)
            await browser.saveScreenshot("toast-login-failed", root: Self.repository)
            try await browser.click(Self.loginError + #" button[data-action="dismiss-toast"]"#)
            try await browser.waitUntil("the dismissed toast to go", "return !document.querySelector(arguments[0]);", [Self.loginError])

            // Again: the toast does not follow the person to another page
            try await signIn(browser, password: "wrong")
            try await browser.waitFor(Self.loginError)
            try await browser.click(#"a[data-tab="tokens"]"#)
            try await browser.waitUntil("the toast to go with the page", "return !document.querySelector('#toasts .toast-error');")
            try await browser.click(#"a[data-tab="flows"]"#)
            try await browser.waitFor(Self.card + #" input[data-field="password"]"#)

            // Again, then the right password: the success takes the failure's toast away
            try await signIn(browser, password: "wrong")
            try await browser.waitFor(Self.loginError)
            try await signIn(browser, password: "alice123")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == true }
            try await browser.waitUntil("the failure toast to go after the success", "return !document.querySelector(arguments[0]);", [Self.loginError])

            // Left alone, an error stays longer than an info toast, then fades too. The pointer goes to the tabs
            // first: a toast that appears under it counts as being read and keeps (a fresh-clone run waited so).
            try await browser.click(#"a[data-tab="flows"]"#)
            try await browser.waitFor(Self.card)
            try await browser.run("""
                return import('/lib/ui.js').then((ui) => {
                  ui.toast('Left alone (info)', { kind: 'info' });
                  ui.toast('Left alone (error)', { kind: 'error' });
                  window.toastsShownAt = Date.now();
                });
                """)
            try await browser.waitUntil("the info toast to fade", timeout: 10,
                "return ![...document.querySelectorAll('#toasts .toast')].some(t => t.innerText.includes('Left alone (info)'));")
            #expect(try await browser.run("return [...document.querySelectorAll('#toasts .toast-error')].some(t => t.innerText.includes('Left alone (error)'));") as? Bool == true)
            try await browser.waitUntil("the error toast to fade", timeout: 20,
                "return ![...document.querySelectorAll('#toasts .toast')].some(t => t.innerText.includes('Left alone (error)'));")
            let errorLasted = try await browser.run("return Date.now() - window.toastsShownAt;") as? Int ?? 0
            #expect(errorLasted >= 12_000 && errorLasted < 20_000, "the error toast lasted \(errorLasted) ms")
        }
    }

    @Test func anUnknownAddressShowsNoSuchPageWithLinksToEveryPage() async throws {
        try await withBrowser { fixture, browser in
            try await browser.open(fixture.console.baseURL + "/#/sesions/abc")
            try await browser.waitFor("#not-found")
            #expect(try await browser.text("#not-found h1") == "No such page")
            #expect(try await browser.text("#not-found code") == "#/sesions/abc")
            #expect(try await browser.count("#not-found a[data-page]") == 8, "one link per page of the navigation, Migration included")
            // A near miss is named, keeping the rest of the address
            #expect(try await browser.text("#not-found-guess") == "Did you mean Sessions?")
            #expect(try await browser.run("return document.querySelector('#not-found-guess a').getAttribute('href');") as? String == "#/sessions/abc")
            #expect(try await browser.count("#view-flows") == 0)
            #expect(try await browser.run("return document.title;") as? String == "No such page · PassConsole")
            await browser.saveScreenshot("no-such-page", root: Self.repository)
            // Its links lead to the pages
            try await browser.click(#"#not-found a[data-page="sessions"]"#)
            try await browser.waitFor("#view-sessions")
            // An empty address is still the Flows page
            try await browser.open(fixture.console.baseURL + "/#/")
            try await browser.waitFor("#view-flows")
        }
    }

    @Test func importingAJSONArraySaysWhatIsWrong() async throws {
        try await withBrowser { fixture, browser in
            let file = fixture.root.appendingPathComponent("array.json")
            try Data(#"[{"domain":"phone/team:TEAM1234"}]"#.utf8).write(to: file)
            try await fixture.signIn()
            try await browser.open(fixture.console.baseURL + "/#/tokens")
            try await browser.waitUntil("the import domain list",
                "return [...document.querySelectorAll('#import-domain option')].some(o => o.value === arguments[0]);", ["phone/team:TEAM1234"])
            try await browser.chooseFile("#import-file", path: file.path)
            try await browser.waitUntil("the array message",
                "return (document.querySelector('#import-message')?.innerText ?? '').includes(arguments[0]);",
                ["This is a JSON array; expected a storage export object or a device's storage.json."])
            #expect(try await browser.text("#import-message")?.contains("not JSON") == false)
            // The panel names its size limit in words
            let limit = try await browser.text("#import-limit") ?? ""
            #expect(limit.contains("Files up to 16 MB."), "\(limit)")
            await browser.saveScreenshot("import-json-array", root: Self.repository)
        }
    }

    /// Issue #27 item 5: the import's toast covered the import form it reported on (both at the bottom right).
    @Test func theImportsToastDoesNotCoverTheImportForm() async throws {
        try await withBrowser { fixture, browser in
            try await fixture.signIn()
            let file = fixture.root.appendingPathComponent("live.json")
            try await fixture.get("/api/storage/export?domain=phone/team:TEAM1234&reveal=true").body.write(to: file)
            try await fixture.call("news-ios", "logout")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == false }
            // A narrow window (beside a ticket tool), where the form's controls reach the toasts' corner
            try await browser.setWindowSize(width: 760, height: 700)
            try await browser.open(fixture.console.baseURL + "/#/tokens")
            try await browser.waitUntil("the import domain list",
                "return [...document.querySelectorAll('#import-domain option')].some(o => o.value === arguments[0]);", ["phone/team:TEAM1234"])
            _ = try await browser.run("const s = document.getElementById('import-domain'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));",
                ["phone/team:TEAM1234"])
            try await browser.chooseFile("#import-file", path: file.path)
            try await browser.waitUntil("the preview", "return !document.querySelector('[data-action=apply-import]').disabled;")
            // The form at the bottom of a short window, as a person scrolls to it
            _ = try await browser.run("document.querySelector('.import-panel').scrollIntoView({block: 'end'});")
            try await browser.click("[data-action=apply-import]")
            try await browser.waitFor("#undo-toast")
            let covered = try await browser.run("""
                const t = document.getElementById('toasts').getBoundingClientRect();
                const rows = [...document.querySelectorAll('.import-panel .form-row, #import-message, #import-preview')].map(e => e.getBoundingClientRect());
                return rows.some(a => t.left < a.right && t.right > a.left && t.top < a.bottom && t.bottom > a.top);
                """) as? Bool
            #expect(covered == false, "the toast covers the import form")
        }
    }

    @Test func anExportIsConfirmedWithItsNameCountAndWhatWasRedacted() async throws {
        try await withBrowser { fixture, browser in
            try await fixture.signIn()
            for name in ["householdID", "zip"] {
                try await fixture.call("news-ios", "getMetadata", ["key": "3", "user_metadata_name": name])
            }
            try await fixture.waitUntilRecorded(atLeast: 20)
            let total = try await fixture.console.history.eventCount
            try await browser.open(fixture.console.baseURL + "/#/events")
            try await browser.waitFor("#events-table tr[data-event-id]")
            try await browser.click(#"button[data-action="export-ndjson"]"#)
            try await browser.waitUntil("the export confirmation",
                "return [...document.querySelectorAll('#toasts .toast-success')].some(t => t.querySelector('strong').innerText.startsWith('Saved passconsole-events-'));")
            let text = try await browser.run(
                "return [...document.querySelectorAll('#toasts .toast-success')].find(t => t.querySelector('strong').innerText.startsWith('Saved passconsole-events-')).querySelector('strong').innerText;") as? String ?? ""
            // (no authorization yet, so no user GUID was sent: her household and ZIP code are what the events hold)
            #expect(text.hasSuffix(".ndjson, \(Self.grouped(total)) events, redacted: household IDs, ZIP codes"), "\(text)")
            await browser.saveScreenshot("export-confirmed", root: Self.repository)
            // Keeping personal data is a choice: ticked, the page asks first, and the confirmation and audit say so
            try await browser.click("#export-reveal-personal")
            try await browser.click(#"button[data-action="export-csv"]"#)
            try await browser.waitFor("#confirm-dialog[open]")
            #expect(try await browser.text("#confirm-title") == "Export with personal data?")
            try await browser.click(#"#confirm-dialog [data-action="confirm"]"#)
            try await browser.waitUntil("the revealed export's confirmation",
                "return [...document.querySelectorAll('#toasts .toast-success strong')].some(t => t.innerText.endsWith('events, personal data kept on purpose (audited)') && t.innerText.includes('.csv'));")
            let audit = await fixture.get("/api/audit").json["entries"] as? [[String: Any]] ?? []
            #expect(audit.first?["action"] as? String == "reveal")
            // A support bundle says so too
            let sessions = await fixture.get("/api/sessions?q=com.example.news.ios").json["sessions"] as? [[String: Any]] ?? []
            let id = try #require(sessions.first?["id"] as? String)
            try await browser.open(fixture.console.baseURL + "/#/sessions/\(id)")
            try await browser.click(#"button[data-action="download-bundle"]"#)
            try await browser.waitUntil("the bundle confirmation",
                "return [...document.querySelectorAll('#toasts .toast-success')].some(t => t.querySelector('strong').innerText.startsWith('Saved passconsole-support-') && t.innerText.includes('redacted: user IDs, household IDs'));")
        }
    }
}
