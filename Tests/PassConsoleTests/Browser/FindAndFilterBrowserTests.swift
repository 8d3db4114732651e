import AccessEnabler
import Foundation
import PassHistory
import PassTestSupport
import Testing
@testable import PassConsole

/// Issue #15 items 1 and 3 in a real headless Chromium: finding the customer from what the ticket says, and filters
/// that forgive. Part of the serialized browser suite: one Chromium at a time.
extension ConsoleBrowserTests {
    static let rowTexts = "return [...document.querySelectorAll(arguments[0])].map(e => e.innerText.trim());"

    @Test func theUserIDCopiedFromTheTokensPageFindsTheSessionHighlightedInASortableList() async throws {
        try await withBrowser { fixture, browser in
            // Given carol signed in with Dish in News, and Sports One and Kids TV started
            try await fixture.signIn(mvpd: "Dish", user: "carol", password: "carol123")
            #expect(await fixture.post("/api/apps/sports-ios/start").status == 200)
            #expect(await fixture.post("/api/apps/kids-tvos/start").status == 200)
            try await fixture.waitUntilRecorded(atLeast: 25)
            // And the support person reads the user ID on the Tokens page
            try await browser.open(fixture.console.baseURL + "/#/tokens")
            let authn = #"[data-domain="phone/team:TEAM1234"][data-requestor="REF30"][data-mvpd="Dish"] .token[data-token-kind="authn"] code"#
            try await browser.waitFor(authn)
            let shown = try #require(try await browser.text(authn))
            let typed = String(shown.prefix(8)) + "…"
            // When they press "f" (find a customer) on that page and type the start of it, as they would copy it
            _ = try await browser.run("document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'f', bubbles: true}));")
            try await browser.waitUntil("the focused session search",
                "return document.activeElement?.id === 'session-search' && location.hash.startsWith('#/sessions');")
            try await browser.type("#session-search", typed)
            // Then exactly News's session is listed, the matched text highlighted and the field named
            try await browser.waitUntil("one session found by its user ID",
                "const rows = document.querySelectorAll('#sessions-table tbody tr'); return rows.length === 1 && rows[0].querySelector('mark.hit') !== null;")
            #expect(try await browser.text("#sessions-table tbody tr mark.hit") == String(shown.prefix(8)))
            #expect(try await browser.text(#"#sessions-table tbody tr .match-line[data-field="userID"]"#)?.hasPrefix("user ID: ") == true)
            #expect(try await browser.text(#"#sessions-table tbody tr td[data-col="app"] .app-name"#) == "News")
            #expect(try await browser.text(#"#sessions-table tbody tr td[data-col="mvpd"]"#) == "Dish")
            #expect(try await browser.text(#"#sessions-table tbody tr td[data-col="user"]"#)?.hasPrefix("carol") == true)
            #expect(try await browser.text(#"#sessions-table tbody tr td[data-col="outcome"]"#)?.contains("signed in") == true)
            await browser.saveScreenshot("sessions-found-by-user-id", root: Self.repository)
            // And the list has the support desk's columns
            let headers = try await browser.run(Self.rowTexts, ["#sessions-table thead th"]) as? [String] ?? []
            #expect(headers.map { $0.replacingOccurrences(of: " ▼", with: "").replacingOccurrences(of: " ▲", with: "") }
                == ["Last seen", "App", "Programmer", "MVPD", "User", "Outcome", "Events"])
            // When the search is cleared and the App header is clicked, the apps are sorted by name, then reversed
            try await browser.run("const box = document.getElementById('session-search'); box.value = ''; box.dispatchEvent(new Event('input'));")
            try await browser.waitUntil("all three sessions", "return document.querySelectorAll('#sessions-table tbody tr').length === 3;")
            try await browser.click(#"#sessions-table th[data-sort="app"] button"#)
            let apps = #"#sessions-table tbody td[data-col="app"] .app-name"#
            try await browser.waitUntil("apps sorted A→Z", "return document.querySelector('#sessions-table th[data-sort=\"app\"]').getAttribute('aria-sort') === 'ascending';")
            #expect(try await browser.run(Self.rowTexts, [apps]) as? [String] == ["Kids TV", "News", "Sports"])
            try await browser.click(#"#sessions-table th[data-sort="app"] button"#)
            try await browser.waitUntil("apps sorted Z→A", "return document.querySelector('#sessions-table th[data-sort=\"app\"]').getAttribute('aria-sort') === 'descending';")
            #expect(try await browser.run(Self.rowTexts, [apps]) as? [String] == ["Sports", "News", "Kids TV"])
            #expect(try await browser.run("return location.hash.includes('sort=app:desc');") as? Bool == true)
            // And with a session open beside the list, the app names stay whole (no "c…")
            try await browser.click(#"#sessions-table tbody tr:nth-child(2)"#)
            try await browser.waitFor("#health-card")
            #expect(try await browser.run(Self.rowTexts, [apps]) as? [String] == ["Sports", "News", "Kids TV"])
            await browser.saveScreenshot("sessions-sorted-with-detail", root: Self.repository)
        }
    }

    @Test func filtersForgiveCaseFlagUnknownKeysAndTheTimePickerNarrowsTheList() async throws {
        try await withBrowser { fixture, browser in
            // Given events at Dish and at Cablevision now, and one at Dish two hours ago
            let now = Date()
            let session = UUID()
            let app = AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234")
            let events = [(120.0, "Dish", "oldDishMarker"), (1, "Dish", "dishMarker"), (1, "Cablevision", "optimumMarker")].enumerated()
                .map { index, row in
                    EntitlementEvent(sequence: index + 1, timestamp: now.addingTimeInterval(-row.0 * 60), sessionID: session,
                        deviceID: "filter-device", app: app, requestorID: "REF30", mvpdID: row.1, kind: .apiCall(name: row.2, arguments: [:]))
                }
            try await fixture.console.history.append(events)
            let summaries = "#events-table tr[data-event-id] td.c-summary"
            // When the person filters on the MVPD as they would type it
            try await browser.open(fixture.console.baseURL + "/#/events?q=mvpd:dish")
            // Then Dish's events are listed, not Cablevision's
            try await browser.waitUntil("Dish's events", "const t = [...document.querySelectorAll(arguments[0])].map(e => e.innerText); return t.some(s => s.includes('dishMarker')) && !t.some(s => s.includes('optimumMarker'));", [summaries])
            #expect(try await browser.count("#filter-hint:not([hidden])") == 0)
            // And each row names its device
            #expect(try await browser.count(#"#events-table tr[data-event-id] td.c-dev button[data-device="filter-device"]"#) >= 2)
            // When they type a key the console does not know
            try await browser.run("const box = document.getElementById('filter-input'); box.value = '';")
            try await browser.type("#filter-input", "foo:bar\n")
            // Then the box flags it and says which keys there are, instead of searching for the text
            try await browser.waitUntil("the unknown-key hint", "return !document.getElementById('filter-hint').hidden;")
            #expect(try await browser.text("#filter-hint")?.contains("is not a filter key") == true)
            #expect(try await browser.count(#".chip.chip-unknown[data-unknown="foo"]"#) == 1)
            await browser.saveScreenshot("events-unknown-filter-key", root: Self.repository)
            // And a misspelt key gets a suggestion that applies with one click
            try await browser.run("const box = document.getElementById('filter-input'); box.value = '';")
            try await browser.type("#filter-input", "programer:REF30\n")
            try await browser.waitFor(#"#filter-hint button[data-action="apply-suggestion"]"#)
            #expect(try await browser.text(#"#filter-hint button[data-action="apply-suggestion"]"#) == "programmer:REF30")
            try await browser.click(#"#filter-hint button[data-action="apply-suggestion"]"#)
            try await browser.waitUntil("the corrected filter", "return location.hash.includes('q=programmer:REF30') && document.getElementById('filter-hint').hidden;")
            try await browser.waitUntil("every marker", "const t = [...document.querySelectorAll(arguments[0])].map(e => e.innerText); return t.some(s => s.includes('oldDishMarker')) && t.some(s => s.includes('optimumMarker'));", [summaries])
            // When they pick "Last 15 min" in the time picker
            try await browser.run("const s = document.getElementById('time-range'); s.value = '-15m'; s.dispatchEvent(new Event('change'));")
            // Then the list narrows to the last 15 minutes, and the filter says so
            try await browser.waitUntil("the old event gone", "const t = [...document.querySelectorAll(arguments[0])].map(e => e.innerText); return t.some(s => s.includes('dishMarker')) && !t.some(s => s.includes('oldDishMarker'));", [summaries])
            #expect(try await browser.run("return location.hash.includes('since:-15m');") as? Bool == true)
            await browser.saveScreenshot("events-last-15-minutes", root: Self.repository)
            // When they jump to an hour and a half ago (with any time again)
            try await browser.run("const s = document.getElementById('time-range'); s.value = ''; s.dispatchEvent(new Event('change'));")
            try await browser.waitUntil("any time again", "return !location.hash.includes('since');")
            let jumpTo = now.addingTimeInterval(-90 * 60)
            try await browser.run("""
                const d = new Date(arguments[0] * 1000); const pad = (n) => String(n).padStart(2, '0');
                document.getElementById('jump-to').value = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
                """, [jumpTo.timeIntervalSince1970])
            try await browser.click(#"button[data-action="jump"]"#)
            // Then only what happened before that moment is listed, and the page says where it is
            try await browser.waitUntil("the events before the moment", "const t = [...document.querySelectorAll(arguments[0])].map(e => e.innerText); return t.some(s => s.includes('oldDishMarker')) && !t.some(s => s.includes('optimumMarker'));", [summaries])
            #expect(try await browser.text("#jumped")?.contains("Showing events before") == true)
            try await browser.click(#"button[data-action="back-to-now"]"#)
            try await browser.waitUntil("back to now", "return !location.hash.includes('at=') && [...document.querySelectorAll(arguments[0])].some(e => e.innerText.includes('optimumMarker'));", [summaries])
            // The Network page has the same time range (and no jump-to-time: it pages by the hour)
            try await browser.open(fixture.console.baseURL + "/#/network")
            // (the Network page drawn, not the Events page still on screen: both have a time range)
            try await browser.waitUntil("the Network page", "return !!document.getElementById('network-table') && !!document.getElementById('time-range');")
            #expect(try await browser.count("#jump-to") == 0)
            try await browser.run("const s = document.getElementById('time-range'); s.value = '-1h'; s.dispatchEvent(new Event('change'));")
            try await browser.waitUntil("the range in the filter", "return location.hash.startsWith('#/network') && location.hash.includes('since:-1h');")
            #expect(try await browser.run("return document.getElementById('time-range').value;") as? String == "-1h")
        }
    }
}
