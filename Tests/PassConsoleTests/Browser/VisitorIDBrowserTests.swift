import Foundation
import PassTestSupport
import Testing

/// Issue 17 B.5 in a real headless Chromium: a visitor ID from an analytics ticket finds the session, and the list
/// and the session's detail show it. Part of the serialized browser suite: one Chromium at a time.
extension ConsoleBrowserTests {
    @Test(.enabled(if: BuiltBinary.passconsole != nil, Comment(rawValue: BuiltBinary.missingMessage)))
    func aVisitorIDFindsTheSessionAndTheSessionShowsIt() async throws {
        try await withBrowser { fixture, browser in
            // Given an app run from the command line that set a visitor ID and reported to the console
            try await VisitorIDEndToEndTests.signInFromTheCommandLine(fixture)
            let visitor = VisitorIDEndToEndTests.visitor
            // When the support person searches for the start of the visitor ID
            try await browser.open(fixture.console.baseURL + "/#/sessions?q=\(visitor.prefix(10))")
            try await browser.waitUntil("one session found by its visitor ID",
                "const rows = document.querySelectorAll('#sessions-table tbody tr'); return rows.length === 1 && rows[0].querySelector('mark.hit') !== null;")
            // Then the match names the field and the user cell shows the whole visitor ID
            #expect(try await browser.text(#"#sessions-table tbody tr .match-line[data-field="visitorID"]"#)?.hasPrefix("visitor ID: ") == true)
            #expect(try await browser.text(#"#sessions-table tbody tr td[data-col="user"] [data-field="visitorIDs"]"#) == "visitor \(visitor)")
            await browser.saveScreenshot("sessions-found-by-visitor-id", root: Self.repository)
            // And the session's detail lists it beside the device ID
            try await browser.click("#sessions-table tbody tr")
            try await browser.waitFor(#"dd[data-field="visitorIDs"]"#)
            #expect(try await browser.text(#"dd[data-field="visitorIDs"]"#) == visitor)
        }
    }
}
