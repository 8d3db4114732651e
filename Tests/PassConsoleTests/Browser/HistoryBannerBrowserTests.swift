import HistoryTestSupport
import AccessEnabler
import Foundation
import PassTestSupport
import Testing

/// The history's health as the page shows it, in a real headless Chromium: a banner on every page while the history
/// cannot be written or is damaged, saying why and what to do, gone once it works again.
@Suite(.serialized, .enabled(if: WebDriver.isAvailable, "needs chromium and chromium-driver (make test installs them)"))
struct HistoryBannerBrowserTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let banner = "const el = document.getElementById('history-health'); "

    @Test func aReadOnlyHistoryShowsABannerSayingWhyAndItGoesWhenWritingWorksAgain() async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            let browser = try await WebDriver.start()
            do {
                try await browser.open(fixture.console.baseURL + "/#/events")
                try await browser.waitUntil("the counts", "return document.getElementById('ctx-counts').innerText.includes('event');")
                #expect(try await browser.run(Self.banner + "return el.hidden;") as? Bool == true)
                // When the history becomes read-only and a reporter's batch is refused
                try await HistoryFaults.readOnly(fixture.sqlite, true)
                let refused = await fixture.post("/api/ingest", body: try EntitlementEvent.Wire.ndjson(HistoryFaults.events(3)),
                    headers: [("Host", "127.0.0.1:8080"), ("Content-Type", "application/x-ndjson")])
                #expect(refused.status == 503)
                // Then the open page shows why, without a reload
                try await browser.waitUntil("the read-only banner", timeout: 30,
                    Self.banner + "return !el.hidden && el.dataset.state === 'read_only' && el.innerText.includes('read-only');")
                let text = try await browser.run(Self.banner + "return el.innerText;") as? String ?? ""
                #expect(text.contains(fixture.sqlite.path!))
                await browser.saveScreenshot("history-read-only-banner", root: Self.repository)
                // When writing works again the banner goes
                try await HistoryFaults.readOnly(fixture.sqlite, false)
                let accepted = await fixture.post("/api/ingest", body: try EntitlementEvent.Wire.ndjson(HistoryFaults.events(3)),
                    headers: [("Host", "127.0.0.1:8080"), ("Content-Type", "application/x-ndjson")])
                #expect(accepted.status == 200)
                try await browser.waitUntil("the banner gone", timeout: 30, Self.banner + "return el.hidden;")
                await browser.quit()
            } catch {
                await browser.saveScreenshot("failure-history-banner", root: Self.repository)
                await browser.quit()
                throw error
            }
        }
    }
}
