import AccessEnabler
import Foundation
import PassHistory
import PassStorage
import PassTestSupport
import Testing
@testable import PassConsole

/// The console page in a real headless Chromium (chromedriver, W3C WebDriver) against a running console, backend and
/// demo apps on loopback. Each test saves screenshots to `artifacts/ui/`.
@Suite(.serialized, .enabled(if: WebDriver.isAvailable, "needs chromium and chromium-driver (make test installs them)"))
struct ConsoleBrowserTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let team = "phone/team:TEAM1234"
    static let cell = #"[data-domain="phone/team:TEAM1234"][data-requestor="REF30"][data-mvpd="Cablevision"]"#

    /// A started console and a browser on it.
    func withBrowser(_ body: (ConsoleFixture, WebDriver) async throws -> Void) async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            let browser = try await WebDriver.start()
            do {
                try await body(fixture, browser)
                await browser.quit()
            } catch {
                await browser.saveScreenshot("failure-\(UUID().uuidString.prefix(8))", root: Self.repository)
                await browser.quit()
                throw error
            }
        }
    }

    func storageBytes(_ fixture: ConsoleFixture) throws -> Data? {
        try fixture.phoneTeamStorage()
    }

    @Test func aFlowDrivenFromThePageLightsItsStatesAndItsEventsArriveLive() async throws {
        try await withBrowser { fixture, browser in
            // Given the console open on the Flows page
            try await browser.open(fixture.console.baseURL + "/#/flows")
            let card = #"[data-app-id="news-ios"]"#
            try await browser.waitFor(card)
            // When the person starts the app, asks for authentication, picks Optimum and signs in inside the card
            try await browser.click(card + #" button[data-action="start"]"#)
            try await browser.waitUntil("setRequestorComplete in the card",
                "return (document.querySelector(arguments[0] + ' .callbacks')?.innerText ?? '').includes('setRequestorComplete');", [card])
            try await browser.click(card + #" button[data-action="getAuthentication"]"#)
            try await browser.click(card + #" button[data-mvpd="Cablevision"]"#)
            try await browser.waitFor(card + #" .flow-step.current[data-step="login"]"#)
            await browser.saveScreenshot("flow-login-step", root: Self.repository)
            try await browser.type(card + #" input[data-field="username"]"#, "alice")
            try await browser.type(card + #" input[data-field="password"]"#, "alice123")
            try await browser.click(card + #" button[data-action="login"]"#)
            // Then the diagram ends on "status delivered", marked for assistive technology too
            try await browser.waitFor(card + #" .flow-step.current[data-step="status"][aria-current="step"]"#)
            await browser.saveScreenshot("flow-signed-in", root: Self.repository)
            // And the Events page already holds the flow's callbacks, newest first, without a reload
            try await browser.click(#"a[data-tab="events"]"#)
            try await browser.waitUntil("the authentication callback in the live table",
                "return [...document.querySelectorAll('#events-table tr[data-event-id]')].some(r => r.innerText.includes('setAuthenticationStatus'));")
            // And new events stream in while the page is open
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await browser.waitUntil("setToken to arrive live",
                "return [...document.querySelectorAll('#events-table tr[data-event-id]')].some(r => r.innerText.includes('setToken'));")
            // A filter narrows the table and says how many events it hides
            try await browser.type("#filter-input", "event:callback\n")
            try await browser.waitUntil("the filter cue", "return (document.querySelector('#filter-cue')?.innerText ?? '').match(/\\d+ hidden/) !== null;")
            // The table is drawn on the next frame after the answer (it may lag the cue): wait for the filtered rows.
            try await browser.waitUntil("only callbacks in the table",
                "const rows = [...document.querySelectorAll('#events-table tr[data-event-id]')]; return rows.length > 0 && rows.every(r => r.innerText.includes('callback'));")
            await browser.saveScreenshot("events-filtered", root: Self.repository)
            // The filter can be saved, and a saved filter applies again with one click after clearing it
            try await browser.click(#"button[data-action="save-filter"]"#)
            try await browser.waitFor(#".saved-chip[data-filter="event:callback"]"#)
            try await browser.open(fixture.console.baseURL + "/#/events")
            try await browser.click(#".saved-chip[data-filter="event:callback"] button.linkish"#)
            try await browser.waitUntil("the saved filter to be applied", "return location.hash.includes('q=event:callback');")
            // And the session's page explains it: the health card, and the callback contract with every rule kept
            try await fixture.waitForEvents(atLeast: 20)
            let sessions = await fixture.get("/api/sessions?q=com.example.news.ios").json["sessions"] as? [[String: Any]] ?? []
            let id = try #require(sessions.first?["id"] as? String)
            try await browser.open(fixture.console.baseURL + "/#/sessions/\(id)")
            try await browser.waitFor("#contract-card li.contract-kept[data-rule=\"requestor_first\"]")
            #expect(try await browser.text("#health-card .headline")?.hasPrefix("Signed in with Cablevision") == true)
            #expect(try await browser.run("return document.querySelectorAll('#contract-card .contract-broken').length;") as? Int == 0)
            // A recorded session's flow shows its last step, without a ticking time or a "stuck" mark
            #expect(try await browser.text(#"section[aria-label="Flow"] .flow-state"#) == "Last step recorded: status delivered.")
            #expect(try await browser.run("return document.getElementById('fleet').hidden;") as? Bool == true)
            await browser.saveScreenshot("session-health-and-contract", root: Self.repository)
        }
    }

    @Test func signingInOnTheMVPDsOwnPageInTheBrowserThenReturningToTheAppCompletesTheFlow() async throws {
        try await withBrowser { fixture, browser in
            // Given the app waiting at the MVPD login page
            let started = await fixture.post("/api/apps/news-ios/start")
            try #require(started.status == 200)
            try await fixture.waitForApp("news-ios") { (($0["callbacks"] as? [[String: Any]]) ?? []).contains { $0["name"] as? String == "setRequestorComplete" } }
            try await fixture.call("news-ios", "getAuthentication")
            try await fixture.waitForApp("news-ios") { pending($0)["providerDialog"] is [Any] }
            try await fixture.call("news-ios", "setSelectedProvider", ["mvpd": "Cablevision"])
            try await fixture.waitForApp("news-ios") { pending($0)["loginURL"] is String }
            let card = #"[data-app-id="news-ios"]"#
            try await browser.open(fixture.console.baseURL + "/#/flows")
            try await browser.waitFor(card + #" a[data-action="open-login"]"#)
            // The panel names the shape of Optimum's pages
            #expect(try await browser.text(card + " .pending.login .sign-in-shape")?.contains("SAML POST · j_username/j_password · Resume page") == true)
            // The card says a running app cannot be started again
            #expect(try await browser.run("return document.querySelector(arguments[0]).disabled;", [card + #" button[data-action="start"]"#]) as? Bool == true)
            // When the person signs in on the MVPD's own page in a second browser window (it ends at adobepass://,
            // which the browser cannot open: Chrome then holds an external-protocol prompt, so the window is its own)
            let loginURL = try #require(try await browser.run("return document.querySelector(arguments[0]).href;", [card + #" a[data-action="open-login"]"#]) as? String)
            let mvpdWindow = try await WebDriver.start()
            try await mvpdWindow.open(loginURL)
            // (Optimum's pages: the SP's page auto-posts the SAMLRequest, the form takes j_username/j_password, a
            // Resume page follows, then a page auto-posts the SAMLResponse to the consumer — Chromium runs the scripts.)
            try await mvpdWindow.type("#j_username", "alice")
            try await mvpdWindow.type("#j_password", "alice123")
            try await mvpdWindow.click(#"button[value="signin"]"#)
            try await mvpdWindow.waitFor(#"form[action$="/resume"] button"#)
            try await mvpdWindow.click(#"form[action$="/resume"] button"#)
            let deadline = Date().addingTimeInterval(10)
            while fixture.backend.sessions.isEmpty, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(fixture.backend.sessions.map(\.username) == ["alice"], "the SAML consumer recorded the sign-in")
            await mvpdWindow.quit()
            // And comes back to the console and hands the app its address
            try await browser.click(card + #" button[data-action="return-to-app"]"#)
            // Then the app fetches the sign-in from the backend and the flow ends signed in
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == true }
            try await browser.waitFor(card + #" .flow-step.current[data-step="status"]"#)
            await browser.saveScreenshot("flow-signed-in-from-browser", root: Self.repository)
            // When the app is stopped, its card says so and lights no step; the status line says what happened
            try await browser.click(card + #" button[data-action="stop"]"#)
            try await browser.waitUntil("the stopped card", "return (document.querySelector(arguments[0] + ' .flow-state')?.innerText ?? '').includes('stopped');", [card])
            #expect(try await browser.count(card + " .flow-step.current") == 0)
            #expect(try await browser.text(card + " .card-status")?.contains("Stopped at") == true)
        }
    }

    @Test func anOpenEventExplainsItsCallbackAndClosesWhenANewFilterHidesIt() async throws {
        try await withBrowser { fixture, browser in
            try await fixture.signIn()
            try await fixture.waitForEvents(atLeast: 15)
            // Given the details of the authentication status callback open on the Events page
            try await browser.open(fixture.console.baseURL + "/#/events?q=setAuthenticationStatus")
            let row = "#events-table tr[data-event-id]"
            try await browser.waitFor(row)
            // The browser tab names the filter, so two open Events tabs are told apart
            #expect(try await browser.run("return document.title;") as? String == "setAuthenticationStatus · Events · PassConsole")
            try await browser.click(row)
            try await browser.waitUntil("the details pane", "return !document.querySelector('aside.inspector').hidden && location.hash.includes('sel=');")
            // Then the callback is told in words, not only as JSON
            #expect(try await browser.text("aside.inspector")?.contains("The viewer is signed in with a TV provider.") == true)
            // When the person changes the filter to one that hides it
            try await browser.type("#filter-input", "event:apiCall\n")
            // Then the pane closes with the address, which names no event any more
            try await browser.waitUntil("the pane to close", "return document.querySelector('aside.inspector').hidden;")
            #expect((try await browser.run("return location.hash;") as? String)?.contains("sel=") == false)
        }
    }

    @Test func theGridFillsAndAVerdictTurnsRedWhenTheClockPassesTheTTL() async throws {
        try await withBrowser { fixture, browser in
            try await fixture.signIn()
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await fixture.waitForApp("news-ios") { ($0["flow"] as? [String: Any])?["detail"] as? String == "Authorized for news: media token delivered." }
            try await browser.open(fixture.console.baseURL + "/#/tokens")
            try await browser.waitFor(Self.cell + #" .verdict[data-rule="ttl"][data-ok="true"]"#)
            #expect(try await browser.count(Self.cell + #" .verdict[data-ok="false"]"#) == 0)
            await browser.saveScreenshot("tokens-valid", root: Self.repository)
            // When the person looks ahead to just after the next expiry (the authorization's, in 1 h)
            try await browser.run("const s = document.getElementById('look-ahead'); s.value = 'next'; s.dispatchEvent(new Event('change'));")
            // Then the authorization's verdict is red, the banner says it is a look-ahead, and the URL keeps it
            try await browser.waitFor(Self.cell + #" .verdict[data-rule="ttl"][data-ok="false"]"#)
            #expect(try await browser.text("#look-ahead-note")?.contains("Looking ahead") == true)
            #expect((try await browser.run("return location.hash;") as? String)?.contains("ahead=") == true)
            await browser.saveScreenshot("tokens-look-ahead", root: Self.repository)
            // And "Back to now" returns to the present verdicts
            try await browser.click(#"button[data-action="look-ahead-now"]"#)
            try await browser.waitUntil("the present verdicts", "return document.querySelectorAll(arguments[0]).length === 0;",
                [Self.cell + #" .verdict[data-ok="false"]"#])
            #expect(try await browser.run("return document.getElementById('look-ahead-note').hidden;") as? Bool == true)
            // When the console's clock passes the authorization's TTL (1 h) but not the authentication's (24 h)
            fixture.clock.advance(by: 2 * 3600)
            try await browser.open(fixture.console.baseURL + "/#/tokens?reload=1")
            // Then the authorization's TTL verdict is red, in words
            try await browser.waitFor(Self.cell + #" .verdict[data-rule="ttl"][data-ok="false"]"#)
            let text = try await browser.text(Self.cell + #" .verdict[data-rule="ttl"][data-ok="false"]"#) ?? ""
            #expect(text.contains("Expired"))
            await browser.saveScreenshot("tokens-expired-verdict", root: Self.repository)
        }
    }

    @Test func clearingThroughTheButtonEmptiesStorageAndUndoBringsItBack() async throws {
        try await withBrowser { fixture, browser in
            try await fixture.signIn()
            let before = try #require(try storageBytes(fixture))
            try await browser.open(fixture.console.baseURL + "/#/tokens")
            try await browser.waitFor(Self.cell)
            // When the person clears the team's storage
            try await browser.click(#"button[data-action="clear-all"][data-clear-domain="phone/team:TEAM1234"]"#)
            // Then the dialog lists exactly what goes and who shares it, before anything changes
            try await browser.waitFor("dialog#confirm-dialog[open]")
            let dialog = try await browser.text("dialog#confirm-dialog") ?? ""
            #expect(dialog.contains("authentication token of REF30 / Cablevision"))
            #expect(dialog.contains("com.example.news.sports"))
            #expect(try storageBytes(fixture) == before)
            await browser.saveScreenshot("clear-confirm", root: Self.repository)
            try await browser.click(#"dialog#confirm-dialog button[data-action="confirm"]"#)
            // The grid empties and the storage file holds no token
            try await browser.waitUntil("the cell to go", "return document.querySelector(arguments[0]) === null;", [Self.cell])
            let cleared = try TokenStore(file: DeviceFolder(root: fixture.root.appendingPathComponent("phone")).teamShared(teamID: "TEAM1234"), domain: "t").load()
            #expect(cleared.isEmpty)
            // Undo puts the very same bytes back
            try await browser.click(#"#undo-toast button[data-action="undo"]"#)
            try await browser.waitFor(Self.cell)
            #expect(try storageBytes(fixture) == before)
            await browser.saveScreenshot("clear-undone", root: Self.repository)
        }
    }

    @Test func importingAGoodFileShowsTokensAndABadOneChangesNothing() async throws {
        try await withBrowser { fixture, browser in
            try await fixture.signIn()
            let export = await fixture.get("/api/storage/export?domain=\(Self.team)&reveal=true").body
            let files = fixture.root.appendingPathComponent("files", isDirectory: true)
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            let good = files.appendingPathComponent("good.json")
            try export.write(to: good)
            let bad = files.appendingPathComponent("bad.json")
            try Data(export.prefix(export.count / 2)).write(to: bad)
            _ = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)"}"#)
            try await browser.open(fixture.console.baseURL + "/#/tokens")
            try await browser.waitUntil("the import domain list",
                "return [...document.querySelectorAll('#import-domain option')].some(o => o.value === arguments[0]);", [Self.team])
            try await browser.run("const s = document.querySelector('#import-domain'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));", [Self.team])
            // A bad file: the message says why, and storage is left as it was
            let emptied = try storageBytes(fixture)
            try await browser.chooseFile("#import-file", path: bad.path)
            try await browser.waitUntil("the rejection message", "return (document.querySelector('#import-message')?.innerText ?? '').includes('Nothing was changed');")
            #expect(try storageBytes(fixture) == emptied)
            await browser.saveScreenshot("import-rejected", root: Self.repository)
            // A good file: the preview lists what would be added, and Apply makes the tokens appear
            try await browser.chooseFile("#import-file", path: good.path)
            try await browser.waitFor(#"#import-preview tr[data-action-kind="added"]"#)
            #expect(try storageBytes(fixture) == emptied)
            await browser.saveScreenshot("import-preview", root: Self.repository)
            try await browser.click(#"button[data-action="apply-import"]"#)
            try await browser.waitFor(Self.cell + #" .verdict[data-rule="ttl"][data-ok="true"]"#)
            await browser.saveScreenshot("import-applied", root: Self.repository)
        }
    }

    @Test func aSupportBundleOpensAsAnOfflineReadOnlyConsole() async throws {
        try await withBrowser { fixture, browser in
            // Given a signed-in session exported as a support bundle
            try await fixture.signIn()
            try await fixture.waitUntilRecorded(atLeast: 15)
            let sessions = await fixture.get("/api/sessions?q=com.example.news.ios").json["sessions"] as? [[String: Any]] ?? []
            let id = try #require(sessions.first?["id"] as? String)
            let file = fixture.root.appendingPathComponent("bundle.json")
            try await fixture.get("/api/sessions/\(id)/bundle").body.write(to: file)
            // When it is opened in a console of its own
            let opened = try OpenedBundle.read(path: file.path)
            let history = try HistoryDatabase.inMemory()
            try await history.append(opened.events)
            var configuration = ConsoleConfiguration(device: DeviceFolder(root: fixture.root.appendingPathComponent("empty")))
            configuration.port = 0
            configuration.publicDirectory = ConsoleFixture.publicPath
            configuration.bundle = opened
            let offline = Console(configuration: configuration, history: history, logger: TestServer.logger)
            try offline.start()
            defer { Task { await offline.shutdown() } }
            try await browser.open(offline.baseURL + "/#/sessions/\(id)")
            // Then every page says it is an offline bundle, and the session's card is the exported one
            try await browser.waitFor("#offline:not([hidden])")
            #expect(try await browser.text("#offline")?.contains("read-only") == true)
            try await browser.waitFor("#health-card .headline")
            #expect(try await browser.text("#health-card .headline")?.hasPrefix("Signed in with Cablevision") == true)
            await browser.saveScreenshot("offline-bundle", root: Self.repository)
            // The bundle's storage was judged when it was exported: the Tokens page offers no look-ahead, even asked for one
            try await browser.open(offline.baseURL + "/#/tokens?ahead=7200")
            try await browser.waitFor(#"#storage-grid [data-requestor="REF30"]"#)
            #expect(try await browser.run("return document.getElementById('look-ahead').hidden && document.getElementById('look-ahead-note').hidden;") as? Bool == true)
        }
    }

    @Test func aSessionReplayedFromItsPageShowsTheStepsAndOpensTheReplay() async throws {
        try await withBrowser { fixture, browser in
            // Given a recorded login of the news app
            try await fixture.signIn()
            try await fixture.waitUntilRecorded(atLeast: 15)
            let id = try #require(try await fixture.app("news-ios")["sessionID"] as? String)
            try await browser.open(fixture.console.baseURL + "/#/sessions/\(id)")
            // When support presses Replay without typing credentials
            try await browser.waitFor("#replay-card [data-action=replay]")
            try await browser.click("#replay-card [data-action=replay]")
            // Then the steps are listed as made, the comparison says the runs match, and the replay opens
            try await browser.waitFor("#replay-card [data-action=open-replay]", timeout: 30)
            #expect(try await browser.count("#replay-card .replay-steps li") == 4)
            #expect(try await browser.count("#replay-card .replay-steps li[data-note=yes]") == 0)
            #expect(try await browser.text("#replay-card .diff-verdict")?.contains("same steps with the same outcomes") == true)
            #expect(try await browser.text("#replay-card .replay-result")?.contains("alice (the recorded user at Cablevision)") == true)
            _ = try await browser.run("document.querySelector('#replay-card .replay-result').scrollIntoView()")
            await browser.saveScreenshot("session-replay", root: Self.repository)
            try await browser.click("#replay-card [data-action=open-replay]")
            try await browser.waitUntil("the replay's page", "return location.hash.includes('sessions/') && !location.hash.includes(arguments[0])", [id])
            // The recording's card is replaced by the replay's once it loads: wait for the replay's words
            try await browser.waitUntil("the replay's health card",
                "return (document.querySelector('#health-card .headline')?.innerText ?? '').startsWith('Signed in with Cablevision');")
        }
    }
}
