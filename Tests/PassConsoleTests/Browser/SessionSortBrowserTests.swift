import Foundation
import PassTestSupport
import Testing
@testable import PassConsole

/// Issue #15 item 1, "sortable": a column header sorts every session on the server, not the 200 rows the page holds,
/// and the URL keeps the order across a reload. Part of the serialized browser suite.
extension ConsoleBrowserTests {
    @Test func clickingTheEventsHeaderListsTheBusiestSessionOfAllAndAReloadKeepsTheOrder() async throws {
        try await withBrowser { fixture, browser in
            // Given 250 sessions, the busiest of them the oldest: not among the 200 the list shows newest first
            let busiest = try await GeneratedSessions.append(250, to: fixture.sqlite, now: fixture.clock.now())
            let rows = "#sessions-table tbody tr"
            try await browser.open(fixture.console.baseURL + "/#/sessions")
            try await browser.waitUntil("the newest 200", "return document.querySelectorAll(arguments[0]).length === 200;", [rows])
            #expect(try await browser.count(#"#sessions-table tbody tr[data-session-id="\#(busiest.uuidString)"]"#) == 0)
            #expect(try await browser.run(#"return document.querySelector('#sessions-table th[data-sort="lastSeen"]').getAttribute('aria-sort');"#) as? String == "descending")
            // When the support person clicks the Events header
            try await browser.click(#"#sessions-table th[data-sort="events"] button"#)
            // Then the server's order arrives: the busiest session of all 250 first, and the header says descending
            try await browser.waitUntil("sorted by events, most first",
                #"return document.querySelector('#sessions-table th[data-sort="events"]').getAttribute('aria-sort') === 'descending';"#)
            #expect(try await browser.run("return document.querySelector(arguments[0])?.dataset.sessionId;", [rows]) as? String == busiest.uuidString)
            #expect(try await browser.text(#"#sessions-table tbody tr:first-child td[data-col="events"]"#) == "150")
            #expect(try await browser.run(#"return document.querySelector('#sessions-table th[data-sort="lastSeen"]').getAttribute('aria-sort');"#) as? String == "none")
            // And the URL keeps the order
            #expect(try await browser.run("return location.hash.includes('sort=events:desc');") as? Bool == true)
            await browser.saveScreenshot("sessions-sorted-by-events", root: Self.repository)
            // When the page is reloaded (as a bookmark would open it)
            _ = try await browser.run("window.beforeReload = true; location.reload();")
            try await browser.waitUntil("the reloaded list", """
                return window.beforeReload === undefined && document.querySelectorAll(arguments[0]).length === 200
                    && document.querySelector('#sessions-table th[data-sort="events"]')?.getAttribute('aria-sort') === 'descending';
                """, [rows])
            // Then it is still sorted by events, the busiest first
            #expect(try await browser.run("return document.querySelector(arguments[0])?.dataset.sessionId;", [rows]) as? String == busiest.uuidString)
            // When the header is clicked again, the fewest events come first, and the busiest is on no page shown yet
            try await browser.click(#"#sessions-table th[data-sort="events"] button"#)
            try await browser.waitUntil("sorted by events, fewest first",
                #"return document.querySelector('#sessions-table th[data-sort="events"]').getAttribute('aria-sort') === 'ascending';"#)
            #expect(try await browser.run("return location.hash.includes('sort=events:asc');") as? Bool == true)
            let counts = try await browser.run(Self.rowTexts, [#"#sessions-table tbody td[data-col="events"]"#]) as? [String] ?? []
            let numbers = counts.compactMap(Int.init)
            #expect(numbers.count == 200 && numbers == numbers.sorted())
            #expect(try await browser.count(#"#sessions-table tbody tr[data-session-id="\#(busiest.uuidString)"]"#) == 0)
            // And "Load more" continues the same order from the server, ending with the busiest
            try await browser.click(#"button[data-action="more-sessions"]"#)
            try await browser.waitUntil("all 250", "return document.querySelectorAll(arguments[0]).length === 250;", [rows])
            #expect(try await browser.run("const r = document.querySelectorAll(arguments[0]); return r[r.length - 1].dataset.sessionId;", [rows]) as? String
                == busiest.uuidString)
            #expect(try await browser.count(#"button[data-action="more-sessions"]:not([hidden])"#) == 0)
        }
    }
}
