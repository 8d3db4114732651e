import Foundation
import PassConsole
import PassHistory
import PassTestSupport
import Testing

/// The page shows each role what it may do (issue #18 item 3), in a real headless Chromium: signed in as a viewer,
/// every change control on the Storage and Sessions pages is disabled with a tooltip naming the role, while reading
/// and the redacted export stay usable; signed in as an operator, the same controls work.
@Suite(.serialized, .enabled(if: WebDriver.isAvailable, "needs chromium and chromium-driver (make test installs them)"))
struct RoleControlsBrowserTests {
    static let repository = ConsoleBrowserTests.repository

    /// The change controls of the Storage page, by what they need (`data-needs`).
    static let storageControls = [
        #"button[data-action="clear-all"]"#, #"button[data-action="clear-programmer"]"#, #"button[data-action="clear-token"]"#,
        #"button[data-action="clear-mvpd"]"#, #"button[data-action="export-storage-reveal"]"#, #"button[data-action="goto-import"]"#,
        "#import-file", "#import-policy", #"button[data-action="apply-import"]"#,
    ]
    /// …and of a session's page.
    static let sessionControls = [
        #"#replay-card button[data-action="replay"]"#, "#replay-username", "#replay-password", "#bundle-reveal-personal",
    ]

    /// For each selector: how many match, how many are disabled, and the first one's tooltip (its label's, for a
    /// control inside a label).
    func states(_ browser: WebDriver, _ selectors: [String]) async throws -> [String: (count: Int, disabled: Int, title: String)] {
        let script = """
            return arguments[0].map((s) => { const all = [...document.querySelectorAll(s)];
              return [s, all.length, all.filter((e) => e.disabled).length, all[0]?.title || all[0]?.closest('label')?.title || '']; });
            """
        let rows = try await browser.run(script, [selectors]) as? [[Any]] ?? []
        var result: [String: (count: Int, disabled: Int, title: String)] = [:]
        for row in rows where row.count == 4 {
            result[row[0] as? String ?? ""] = ((row[1] as? Int) ?? 0, (row[2] as? Int) ?? 0, (row[3] as? String) ?? "")
        }
        return result
    }

    @Test func aViewerSeesChangeControlsDisabledWithTheReasonAndAnOperatorCanUseThem() async throws {
        try await ConsoleFixture.with { fixture in
            // Given tokens in the phone's storage and a recorded session, from before the console had operators
            try fixture.console.start()
            try await fixture.signIn("news-ios", mvpd: "Cablevision", user: "alice", password: "alice123")
            try await fixture.waitForEvents(atLeast: 10)
            let sessions = await fixture.get("/api/sessions?q=com.example.news.ios").json["sessions"] as? [[String: Any]] ?? []
            let session = try #require(sessions.first?["id"] as? String)
            // and then a viewer and an operator
            let vera = OperatorToken.generate(), otto = OperatorToken.generate()
            try await fixture.console.history.addOperator(
                OperatorRecord(name: "vera", role: .viewer, tokenHash: OperatorToken.hash(vera), createdAt: Date()))
            try await fixture.console.history.addOperator(
                OperatorRecord(name: "otto", role: .operator, tokenHash: OperatorToken.hash(otto), createdAt: Date()))
            let deadline = ContinuousClock.now + .seconds(TestTime.seconds(20))  // the console re-reads operators each second
            while await fixture.get("/api/overview").status != 401, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            let browser = try await WebDriver.start()
            do {
                // As the viewer, on the Storage page: every change control is disabled and says why
                try await browser.open(fixture.console.baseURL + "/?token=\(vera)#/tokens")
                try await browser.waitUntil("signed in as vera", "return document.getElementById('ctx-operator').innerText.includes('vera');")
                try await browser.waitFor(#"button[data-action="clear-token"]"#)
                try await browser.waitUntil("the clear buttons disabled", #"return document.querySelector('button[data-action="clear-token"]').disabled;"#)
                for (selector, state) in try await states(browser, Self.storageControls) {
                    #expect(state.count > 0, "\(selector) is on the Storage page")
                    #expect(state.disabled == state.count, "\(selector): \(state.disabled) of \(state.count) disabled")
                    #expect(state.title.contains("vera is a viewer: a viewer may not"), "\(selector): \(state.title)")
                }
                #expect(try await states(browser, [#"button[data-action="clear-all"]"#]).first?.value.title
                    == "vera is a viewer: a viewer may not clear storage. Ask someone with the operator role.")
                // …while reading stays open: the redacted export and the look-ahead
                let readers = try await states(browser, [#"button[data-action="export-storage"]"#, "#look-ahead"])
                #expect(readers.values.allSatisfy { $0.count > 0 && $0.disabled == 0 }, "\(readers)")
                // A forbidden control cannot be used even by a script's click: no dialog, no request (so no 403 toast).
                // Both would start within the click itself (showModal and fetch are called synchronously), so they
                // are counted right after it, without waiting (issue #27 item 16: a 300 ms sleep stood here).
                _ = try await browser.run("""
                    window.__requests = 0;
                    const fetched = window.fetch;
                    window.fetch = (...args) => { window.__requests += 1; return fetched(...args); };
                    document.querySelector('button[data-action="clear-all"]').click();
                    """)
                #expect(try await browser.count("dialog#confirm-dialog[open]") == 0)
                #expect(try await browser.run("return window.__requests;") as? Int == 0)
                #expect(try await browser.count(".toast") == 0)
                // Views draw their controls again as storage changes: still disabled afterwards
                let asOtto = fixture.pageHeaders + [("Authorization", "Bearer \(otto)")]
                let called = await fixture.post("/api/apps/news-ios/call", json: #"{"method":"getAuthorization","arguments":{"resource":"news"}}"#,
                    headers: asOtto)
                #expect(called.status == 202, "\(called.text)")
                try await browser.waitFor(#"[data-token-kind="authz"]"#, timeout: TestTime.seconds(30))
                let redrawn = try await states(browser, [#"button[data-action="clear-token"]"#])
                #expect(redrawn.values.allSatisfy { $0.count >= 2 && $0.disabled == $0.count }, "\(redrawn)")
                await browser.saveScreenshot("viewer-storage-controls", root: Self.repository)

                // On a session's page: replay and the personal-data reveal are disabled; the redacted bundle is not
                try await browser.open(fixture.console.baseURL + "/#/sessions/\(session)")
                try await browser.waitFor(#"#replay-card button[data-action="replay"]"#)
                try await browser.waitUntil("the replay button disabled", #"return document.querySelector('#replay-card button[data-action="replay"]').disabled;"#)
                for (selector, state) in try await states(browser, Self.sessionControls) {
                    #expect(state.count == 1 && state.disabled == 1, "\(selector)")
                    #expect(state.title.contains("vera is a viewer: a viewer may not"), "\(selector): \(state.title)")
                }
                let bundle = try await states(browser, [#"button[data-action="download-bundle"]"#])
                #expect(bundle.values.allSatisfy { $0.count == 1 && $0.disabled == 0 })
                await browser.saveScreenshot("viewer-session-controls", root: Self.repository)
                // The app buttons (Flows) and the device settings (Devices & SSO) are changes too
                try await browser.open(fixture.console.baseURL + "/#/flows")
                try await browser.waitFor(#"[data-app-id="news-ios"] button[data-action="getAuthentication"]"#)
                try await browser.waitFor(#"[data-app-id="news-ios"] button[data-action="getAuthentication"][data-forbidden]"#)
                try await browser.open(fixture.console.baseURL + "/#/devices")
                try await browser.waitFor(#"button[data-action="tv-provider"][data-forbidden="change"]"#)
                try await browser.waitFor(#"button[data-action="whatif"][data-forbidden="change"]"#)
                let appButtons = try await states(browser, [#"button[data-action="tv-provider"]"#, #"button[data-action="whatif"]"#])
                #expect(appButtons.values.allSatisfy { $0.count > 0 && $0.disabled == $0.count }, "\(appButtons)")

                // As the operator: the same controls work, with their own tooltips
                try await browser.open(fixture.console.baseURL + "/?token=\(otto)#/tokens")
                try await browser.waitUntil("signed in as otto", "return document.getElementById('ctx-operator').innerText.includes('otto');")
                try await browser.waitFor(#"button[data-action="clear-token"]"#)
                let operatorStorage = try await states(browser, Self.storageControls.filter { !$0.contains("apply-import") })
                for (selector, state) in operatorStorage {
                    #expect(state.count > 0 && state.disabled == 0, "\(selector): \(state.disabled) of \(state.count) disabled")
                    #expect(!state.title.contains("may not"), "\(selector): \(state.title)")
                }
                // (Apply stays disabled until a file is chosen and checked: the panel's own rule, not the role's)
                #expect(try await browser.run(#"return document.querySelector('button[data-action="apply-import"]').dataset.forbidden ?? 'none';"#) as? String == "none")
                try await browser.click(#"button[data-action="clear-all"]"#)
                try await browser.waitFor("dialog#confirm-dialog[open]")
                try await browser.click(#"dialog#confirm-dialog button[data-action="cancel-dialog"]"#)
                try await browser.open(fixture.console.baseURL + "/#/sessions/\(session)")
                try await browser.waitFor(#"#replay-card button[data-action="replay"]"#)
                try await browser.waitUntil("signed in as otto", "return document.getElementById('ctx-operator').innerText.includes('otto');")
                for (selector, state) in try await states(browser, Self.sessionControls) {
                    #expect(state.count == 1 && state.disabled == 0, "\(selector)")
                }
                await browser.quit()
            } catch {
                await browser.saveScreenshot("failure-role-controls", root: Self.repository)
                await browser.quit()
                throw error
            }
        }
    }
}
