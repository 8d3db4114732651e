import Foundation
import MicroHTTP
import PassConsole
import PassHistory
import PassProxy
import PassTestSupport
import Testing

/// Issue #27 item 17, people who use a keyboard or a screen reader, in a real headless Chromium: axe-core finds
/// nothing on any page of the console (nor with a dialog or a details pane open), and every action is reachable
/// and visible from the keyboard alone. Part of the serialized browser suite: one Chromium at a time.
extension ConsoleBrowserTests {
    /// A page of the console: its address, and what shows once its data is drawn.
    struct ConsolePage {
        var name: String
        var hash: String
        var ready: String
    }

    /// Demo data on every page: News signed in with Optimum, Sports One started, their events recorded.
    func withDemoData(_ fixture: ConsoleFixture) async throws -> String {
        try await fixture.signIn()
        try await fixture.start("sports-ios")
        try await fixture.waitUntilRecorded(atLeast: 20)
        let sessions =
            await fixture.get("/api/sessions?q=com.example.news.ios").json["sessions"] as? [[String: Any]] ?? []
        return try #require(sessions.first?["id"] as? String)
    }

    /// Opens `page`, waits for its data, and returns what axe finds there, one line per violation.
    func axeViolations(on page: ConsolePage, _ fixture: ConsoleFixture, _ browser: WebDriver) async throws -> [String] {
        try await browser.open(fixture.console.baseURL + "/" + page.hash)
        try await browser.waitFor(page.ready)
        return try await Axe.violations(in: browser)
    }

    static func report(_ violations: [String], _ where: String) -> Comment {
        Comment(
            rawValue: "axe found \(violations.count) violation(s) on \(`where`):\n" + violations.joined(separator: "\n")
        )
    }

    /// Every page of the console, and a session's page.
    static func pages(session: String) -> [ConsolePage] {
        [
            ConsolePage(name: "Flows", hash: "#/flows", ready: #"[data-app-id="news-ios"] .flow-step.current"#),
            ConsolePage(name: "Tokens", hash: "#/tokens", ready: #".token[data-token-kind="authn"]"#),
            ConsolePage(name: "Devices & SSO", hash: "#/devices", ready: "#ids-heading"),
            ConsolePage(name: "Events", hash: "#/events", ready: "#events-table tr[data-event-id]"),
            ConsolePage(
                name: "Network", hash: "#/network",
                ready: "#view-network .table-message .empty, #network-table tr[data-event-id]"),
            ConsolePage(name: "Sessions", hash: "#/sessions", ready: "#sessions-table tbody tr"),
            ConsolePage(name: "a session", hash: "#/sessions/\(session)", ready: "#health-card"),
            ConsolePage(name: "Migration", hash: "#/migration", ready: "#migration-apps > *"),
            ConsolePage(name: "Audit log", hash: "#/audit", ready: "#view-audit .empty, #audit-table tbody tr"),
            ConsolePage(name: "No such page", hash: "#/nowhere", ready: "#not-found"),
        ]
    }

    @Test func axeFindsNoViolationOnAnyPageOfTheConsole() async throws {
        try await withBrowser { fixture, browser in
            // Given the console with demo data: a signed-in session, tokens, events, a second app
            let session = try await withDemoData(fixture)
            // When axe runs on each page, Then it finds nothing
            for page in Self.pages(session: session) {
                let violations = try await axeViolations(on: page, fixture, browser)
                #expect(violations.isEmpty, Self.report(violations, "the \(page.name) page"))
            }
        }
    }

    @Test func axeFindsNoViolationWithADialogOrADetailsPaneOpen() async throws {
        try await withBrowser { fixture, browser in
            _ = try await withDemoData(fixture)
            // The keyboard shortcuts dialog, opened with "?"
            let events = ConsolePage(name: "Events", hash: "#/events", ready: "#events-table tr[data-event-id]")
            try await browser.open(fixture.console.baseURL + "/" + events.hash)
            try await browser.waitFor(events.ready)
            try await browser.press("?")
            try await browser.waitFor("#help-dialog[open]")
            var violations = try await Axe.violations(in: browser)
            #expect(
                violations.isEmpty, Self.report(violations, "the Events page with the keyboard shortcuts dialog open"))
            try await browser.press(Self.escape)
            try await browser.waitUntil(
                "the shortcuts dialog to close", "return !document.getElementById('help-dialog').open;")
            // An event's details beside the list
            try await browser.click("#events-table tr[data-event-id]")
            try await browser.waitUntil(
                "the event's details", "return !document.querySelector('aside.inspector').hidden;")
            violations = try await Axe.violations(in: browser)
            #expect(violations.isEmpty, Self.report(violations, "the Events page with an event's details open"))
            // Its raw JSON, a box that scrolls
            try await browser.click(#"aside.inspector button[role="tab"][data-tab-id="raw"]"#)
            try await browser.waitFor("aside.inspector pre.body")
            violations = try await Axe.violations(in: browser)
            #expect(violations.isEmpty, Self.report(violations, "the Events page with an event's raw JSON open"))
            // The confirmation before clearing a Programmer's tokens
            try await browser.open(fixture.console.baseURL + "/#/tokens")
            try await browser.click(#"button[data-action="clear-programmer"][data-clear-requestor="REF30"]"#)
            try await browser.waitFor("dialog#confirm-dialog[open]")
            violations = try await Axe.violations(in: browser)
            #expect(violations.isEmpty, Self.report(violations, "the Tokens page with the clear confirmation open"))
            try await browser.click(#"dialog#confirm-dialog button[data-action="cancel-dialog"]"#)
            try await browser.waitUntil(
                "the confirmation to close", "return !document.getElementById('confirm-dialog').open;")
        }
    }

    @Test func axeFindsNoViolationOnTheSignInBarNorOnAViewersPages() async throws {
        try await ConsoleFixture.with { fixture in
            let token = OperatorToken.generate()
            try await fixture.console.history.addOperator(
                OperatorRecord(name: "vera", role: .viewer, tokenHash: OperatorToken.hash(token), createdAt: Date()))
            try fixture.console.start()
            let browser = try await WebDriver.start()
            do {
                // The bar asking a named operator for a token
                try await browser.open(fixture.console.baseURL + "/#/tokens")
                try await browser.waitFor("#sign-in-token")
                var violations = try await Axe.violations(in: browser)
                #expect(violations.isEmpty, Self.report(violations, "the Tokens page asking for a sign-in"))
                // A viewer's page, what a viewer may not use greyed out
                try await browser.type("#sign-in-token", token)
                try await browser.click("#sign-in button[type=submit]")
                try await browser.waitUntil(
                    "signed in as vera", "return document.getElementById('ctx-operator').innerText.includes('vera');")
                try await browser.waitFor("#import-file[data-forbidden]")
                violations = try await Axe.violations(in: browser)
                #expect(violations.isEmpty, Self.report(violations, "the Tokens page of a viewer"))
                await browser.quit()
            } catch {
                await browser.saveScreenshot("failure-a11y-sign-in", root: Self.repository)
                await browser.quit()
                throw error
            }
        }
    }

    @Test func axeAndTabFindNothingOnTheNetworkPageWithExchangesTheProxyPanelAndDetailsOpen() async throws {
        try await withBrowser { fixture, browser in
            // Given a recording proxy in front of the backend, with a rule, and exchanges recorded through it
            let proxy = RecordingProxy(
                upstream: URL(string: fixture.backendURL)!, recording: fixture.console.servedEventSink)
            let server = HTTPServer(
                configuration: HTTPServerConfiguration(), responder: proxy, logger: TestServer.logger)
            try server.start()
            defer { Task { await server.shutdown(gracePeriod: .seconds(1)) } }
            fixture.console.attachProxy(proxy, url: server.baseURL)
            let client = TestHTTPClient(baseURL: server.baseURL)
            _ = try await client.get("/api/v1/config/REF30")
            _ = try await client.get("/api/v1/authorize?requestor=REF30&deviceId=d&resource=news")
            // When the Network page lists them with the proxy's panel open and a rule added
            let network = ConsolePage(name: "Network", hash: "#/network", ready: "#network-table tr[data-event-id]")
            try await openAfresh(network, fixture, browser)
            try await browser.click("#proxy-panel > summary")
            try await browser.type(#".proxy-rule-form input[name="path"]"#, "authorize")
            try await browser.type(#".proxy-rule-form input[name="status"]"#, "503")
            try await browser.click(#"[data-action="add-proxy-rule"]"#)
            try await browser.waitUntil(
                "the rule listed", "return document.querySelectorAll('.proxy-rules li').length === 1;")
            // Then axe finds nothing, with an exchange's details open too
            var violations = try await Axe.violations(in: browser)
            #expect(violations.isEmpty, Self.report(violations, "the Network page with exchanges and the proxy panel"))
            try await browser.click("#network-table tr[data-event-id]")
            try await browser.waitUntil(
                "the exchange's details", "return !document.querySelector('aside.inspector').hidden;")
            violations = try await Axe.violations(in: browser)
            #expect(violations.isEmpty, Self.report(violations, "the Network page with an exchange's details open"))
            // And Tab reaches every control of it, focus drawn at each stop
            // (the page opened afresh, the panel opened without moving focus from the top)
            try await openAfresh(network, fixture, browser)
            _ = try await browser.run("document.getElementById('proxy-panel').open = true;")
            try await browser.waitFor(".proxy-rules li")
            let count = (try await browser.run(Self.controls, [false]) as? [String] ?? []).count
            let walk = try await tabThrough(browser, limit: 2 * count + 20)
            let missed = try await browser.run(Self.controls, [true]) as? [String] ?? []
            #expect(missed.isEmpty, "on the Network page Tab never reached \(missed); it went to \(walk.names)")
            #expect(walk.unseen.isEmpty, "on the Network page focus was not visible on \(walk.unseen)")
        }
    }

    // MARK: - Keyboard

    static let tab = "\u{E004}"
    static let enter = "\u{E007}"
    static let escape = "\u{E00C}"

    /// The page's `nameOf(element)`, as a test reads an element: its id, page tab, action or tag and words.
    static let nameOf = #"""
        const nameOf = (e) => !e || e === document.body ? 'body' : e.id ? `#${e.id}` : e.dataset.tab ? `tab:${e.dataset.tab}`
          : e.dataset.action ? `action:${e.dataset.action}`
          : `${e.tagName.toLowerCase()}:${(e.getAttribute('aria-label') ?? e.textContent ?? '').trim().slice(0, 40)}`;
        """#

    /// The focused element (remembered in `window.tabbedTo`), its name, whether it was focused before (not counting
    /// the step before: a date box takes a Tab per field), and whether a person sees where focus is: an outline drawn
    /// (the page draws outlines only for focus) on screen.
    static let focused =
        nameOf + #"""
            const e = document.activeElement;
            window.tabbedTo ??= new Set();
            const again = window.tabbedTo.has(e) && window.lastTabbedTo !== e;
            window.tabbedTo.add(e);
            window.lastTabbedTo = e;
            if (!e || e === document.body) return { name: 'body', visible: false, again };
            const style = getComputedStyle(e);
            const box = e.getBoundingClientRect();
            const drawn = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
            const onScreen = box.width > 0 && box.height > 0 && box.right > 0 && box.bottom > 0
              && box.left < innerWidth && box.top < innerHeight;
            return { name: nameOf(e), visible: drawn && onScreen, inDialog: e.closest('dialog') !== null, again };
            """#

    /// Every control a person can reach with Tab on the page as drawn now (`window.tabbedTo` not among them, with
    /// `missedOnly`): links, buttons, boxes, summaries and anything given a tab stop, shown and enabled.
    static let controls =
        nameOf + #"""
            const missedOnly = arguments[0];
            return [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')]
              .filter((e) => e.tabIndex >= 0 && !e.disabled && !e.closest('[inert], dialog:not([open])')
                && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden')
              .filter((e) => !missedOnly || !window.tabbedTo?.has(e))
              .map(nameOf);
            """#

    /// Presses Tab until focus leaves the page's last control (to the page itself, or round to where it has been) or
    /// `until` is focused, at most `limit` times; returns where focus went, in order, and where it went unseen.
    func tabThrough(_ browser: WebDriver, limit: Int, until last: String? = nil) async throws -> (
        names: [String], unseen: [String]
    ) {
        var names: [String] = []
        var unseen: [String] = []
        for _ in 0..<limit {
            try await browser.press(Self.tab)
            let now = try await browser.run(Self.focused) as? [String: Any] ?? [:]
            let name = now["name"] as? String ?? "?"
            if now["again"] as? Bool == true || (name == "body" && !names.isEmpty) { break }
            // (each field of a date box too)
            if now["visible"] as? Bool != true, !unseen.contains(name) { unseen.append(name) }
            if name == names.last { continue }
            names.append(name)
            if name == last { break }
        }
        return (names, unseen)
    }

    /// Loads `page` afresh (focus at the top of the document) and waits for its data.
    func openAfresh(_ page: ConsolePage, _ fixture: ConsoleFixture, _ browser: WebDriver) async throws {
        try await browser.open("about:blank")
        try await browser.open(fixture.console.baseURL + "/" + page.hash)
        try await browser.waitFor(page.ready)
    }

    @Test func tabReachesEveryControlOfEveryPageWithTheFocusAlwaysVisible() async throws {
        try await withBrowser { fixture, browser in
            let session = try await withDemoData(fixture)
            for page in Self.pages(session: session) {
                // Given a page just opened, When the person presses Tab from the top until focus comes round again
                try await openAfresh(page, fixture, browser)
                let count = (try await browser.run(Self.controls, [false]) as? [String] ?? []).count
                let walk = try await tabThrough(browser, limit: 2 * count + 20)
                // Then the first stop is the skip link, and every control of the page and its header was a stop
                #expect(
                    walk.names.first == "action:skip",
                    "first Tab stop on the \(page.name) page: \(walk.names.prefix(3))")
                let missed = try await browser.run(Self.controls, [true]) as? [String] ?? []
                #expect(
                    missed.isEmpty, "on the \(page.name) page Tab never reached \(missed); it went to \(walk.names)")
                // And each stop showed where focus was
                #expect(walk.unseen.isEmpty, "on the \(page.name) page focus was not visible on \(walk.unseen)")
            }
        }
    }

    @Test func theSkipLinkJAndEnterOpenAnEventAndASessionWithoutTheMouse() async throws {
        try await withBrowser { fixture, browser in
            _ = try await withDemoData(fixture)
            let events = ConsolePage(name: "Events", hash: "#/events", ready: "#events-table tr[data-event-id]")
            try await openAfresh(events, fixture, browser)
            // When the person presses Tab and Enter, the skip link takes focus past the header to the page
            try await browser.press(Self.tab)
            try await browser.press(Self.enter)
            try await browser.waitUntil("focus on the page's content", "return document.activeElement?.id === 'main';")
            // And from there j selects the newest event and Enter opens its details
            try await browser.press("j")
            try await browser.waitFor("#events-table tr[data-event-id].selected")
            try await browser.press(Self.enter)
            try await browser.waitUntil(
                "the event's details", "return !document.querySelector('aside.inspector').hidden;")
            // And on the Sessions page the same keys open a session
            let sessions = ConsolePage(name: "Sessions", hash: "#/sessions", ready: "#sessions-table tbody tr")
            try await openAfresh(sessions, fixture, browser)
            try await browser.press(Self.tab)
            try await browser.press(Self.enter)
            try await browser.waitUntil("focus on the page's content", "return document.activeElement?.id === 'main';")
            try await browser.press("j")
            try await browser.press(Self.enter)
            try await browser.waitFor("#health-card")
        }
    }

    @Test func aDialogOpenedFromTheKeyboardKeepsFocusInsideAndGivesItBackWhenClosed() async throws {
        try await withBrowser { fixture, browser in
            try await browser.open(fixture.console.baseURL + "/#/flows")
            try await browser.waitFor(#"[data-app-id="news-ios"]"#)
            // Given focus on the header's "?" button, reached with Tab
            let walk = try await tabThrough(browser, limit: 10, until: "action:help")
            try #require(walk.names.last == "action:help", "Tab never reached the help button: \(walk.names)")
            // When Enter opens the shortcuts dialog
            try await browser.press(Self.enter)
            try await browser.waitFor("#help-dialog[open]")
            // Then Tab never takes focus out of it to the page behind
            for _ in 0..<4 {
                try await browser.press(Self.tab)
                let now = try await browser.run(Self.focused) as? [String: Any] ?? [:]
                #expect(
                    now["name"] as? String == "body" || now["inDialog"] as? Bool == true,
                    "focus left the dialog: \(now)")
            }
            // And Esc closes it and puts focus back on the button that opened it
            try await browser.press(Self.escape)
            try await browser.waitUntil(
                "the dialog to close and focus to come back",
                "return !document.getElementById('help-dialog').open && document.activeElement?.dataset.action === 'help';"
            )
        }
    }
}
