import AccessEnabler
import Foundation
import PassHistory
import PassTestSupport
import Testing
@testable import PassConsole

/// The live feed in a real headless Chromium: many tabs of one console share one connection, and the Events page
/// stays responsive through a burst. Part of the serialized browser suite: one Chromium at a time.
extension ConsoleBrowserTests {
    static func events(
        _ range: Range<Int>, session: UUID, name: String, app: AppIdentity = AppIdentity(bundleID: "com.burst.app", teamID: "BURST1")
    ) -> [EntitlementEvent] {
        range.map { i in
            EntitlementEvent(sequence: i + 1, timestamp: Date(), sessionID: session, deviceID: "burst-device",
                app: app, requestorID: "REF30", mvpdID: nil, kind: .apiCall(name: "\(name)\(i)", arguments: [:]))
        }
    }

    static let isLive = "return document.querySelector('#ctx-live .live-text')?.textContent === 'Live' && !document.querySelector('main p.empty')?.textContent.includes('Loading the console');"

    @Test func tenTabsOfOneConsoleAreAllLiveOnOneSharedConnection() async throws {
        try await withBrowser { fixture, browser in
            // Given ten tabs of the console on the Events page (a browser allows six connections per host)
            var tabs = [try await browser.currentTab()]
            try await browser.open(fixture.console.baseURL + "/#/events")
            for _ in 1..<10 {
                tabs.append(try await browser.newTab())
                try await browser.open(fixture.console.baseURL + "/#/events")
            }
            // Then every one loads and shows "Live"
            for (index, tab) in tabs.enumerated() {
                try await browser.switchTo(tab)
                try await browser.waitUntil("tab \(index + 1) to load and be live", Self.isLive)
            }
            // And the server holds one live connection for all of them
            #expect(fixture.console.live.clientCount <= 2, "\(fixture.console.live.clientCount) SSE clients")
            // When an event is stored
            try await fixture.console.history.append(Self.events(0..<1, session: UUID(), name: "sharedMarker"))
            // Then every tab shows it live
            for (index, tab) in tabs.enumerated() {
                try await browser.switchTo(tab)
                try await browser.waitUntil("the event in tab \(index + 1)",
                    "return [...document.querySelectorAll('#events-table tr[data-event-id]')].some(r => r.innerText.includes('sharedMarker0'));")
            }
            #expect(fixture.console.live.clientCount <= 2)
            // And when all but one tab close, the last one stays live
            for tab in tabs.dropFirst() {
                try await browser.switchTo(tab)
                try await browser.closeTab()
            }
            try await browser.switchTo(tabs[0])
            try await fixture.console.history.append(Self.events(1..<2, session: UUID(), name: "sharedMarker"))
            try await browser.waitUntil("the next event in the last tab",
                "return [...document.querySelectorAll('#events-table tr[data-event-id]')].some(r => r.innerText.includes('sharedMarker1'));")
        }
    }

    /// 1,000 events/s for 10 s into an open, unfiltered Events page: rows are drawn per frame into a windowed table, so
    /// the page keeps answering (it used to measure the 3,000-row table once per event and stay at 100% CPU for minutes).
    @Test func aBurstOfAThousandEventsASecondKeepsTheEventsPageResponsive() async throws {
        try await withBrowser { fixture, browser in
            try await browser.open(fixture.console.baseURL + "/#/events")
            try await browser.waitUntil("the page to be live", Self.isLive)
            // Long tasks (main thread busy > 50 ms) and the lateness of a 50 ms timer (what a click would wait)
            try await browser.run("""
                window.__long = []; window.__lag = [];
                new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push(e.duration); })
                    .observe({ type: 'longtask', buffered: false });
                let expected = performance.now() + 50;
                window.__timer = setInterval(() => { const now = performance.now(); window.__lag.push(now - expected); expected = now + 50; }, 50);
                """)
            let before = try await browser.performanceMetrics()
            let measuring = ContinuousClock.now
            // When 10,000 events arrive over 10 s, in commits of 50
            let session = UUID()
            let started = ContinuousClock.now
            for batch in 0..<200 {
                try await fixture.console.history.append(Self.events(batch * 50..<(batch + 1) * 50, session: session, name: "burst"))
                let due = started + .milliseconds(50 * (batch + 1))
                if ContinuousClock.now < due { try await Task.sleep(until: due) }
            }
            // Then the last one is shown within a few seconds
            try await browser.waitUntil("the last burst event on top", timeout: 30,
                "return (document.querySelector('#events-table tr[data-event-id]')?.innerText ?? '').includes('burst9999');")
            let figures = try #require(try await browser.run("""
                clearInterval(window.__timer);
                const lag = [...window.__lag].sort((a, b) => a - b);
                return { longTotal: window.__long.reduce((a, b) => a + b, 0), longMax: Math.max(0, ...window.__long),
                    longCount: window.__long.length, lagP99: lag[Math.floor(lag.length * 0.99)] ?? 0, lagMax: lag.at(-1) ?? 0,
                    rows: document.querySelectorAll('#events-table tbody tr[data-event-id]').length };
                """) as? [String: Any])
            let after = try await browser.performanceMetrics()
            let elapsed = (ContinuousClock.now - measuring) / .seconds(1)
            let spent = { (name: String) in (after[name] ?? 0) - (before[name] ?? 0) }
            print("burst main thread: task \(spent("TaskDuration")) s, script \(spent("ScriptDuration")) s, layout \(spent("LayoutDuration")) s, "
                + "\(Int(spent("LayoutCount"))) layouts, \(Int(spent("RecalcStyleCount"))) style recalcs, nodes \(after["Nodes"] ?? 0), "
                + "main thread CPU \(spent("ThreadTime")) s")
            let longTotal = figures["longTotal"] as? Double ?? 0, longMax = figures["longMax"] as? Double ?? 0
            let lagP99 = figures["lagP99"] as? Double ?? 0, rows = figures["rows"] as? Int ?? 0
            print("burst: long tasks \(figures["longCount"] ?? 0), total \(Int(longTotal)) ms, longest \(Int(longMax)) ms; "
                + "timer lateness p99 \(Int(lagP99)) ms, max \(Int(figures["lagMax"] as? Double ?? 0)) ms; rows in the DOM \(rows)")
            // And the page kept up: layout at most about once a frame (it was once per event: 10,000), the main thread's
            // own CPU well under the time measured (it was 100% for minutes; 6 s of a quiet 10 s burst, but a burst on a
            // loaded machine lasts longer and costs more: a run beside a benchmark spent 7.1 s), only a window of rows
            // in the DOM. Wall-clock
            // figures (long tasks, timer lateness) swell when the machine is shared — a fresh-clone run beside a build saw
            // 6.9 s of long tasks — so they only guard against a freeze: the old page was in long tasks the whole burst.
            #expect(longTotal < 9000 * TestTime.scale, "long tasks took \(Int(longTotal)) ms of 10 s")
            #expect(lagP99 < 2000 * TestTime.scale, "a 50 ms timer was late by \(Int(lagP99)) ms (p99)")
            #expect(spent("LayoutCount") < 1500, "\(Int(spent("LayoutCount"))) layouts for 10,000 events")
            #expect(spent("ThreadTime") < 0.85 * elapsed,
                "the page's main thread used \(spent("ThreadTime")) s of CPU in \(String(format: "%.1f", elapsed)) s")
            #expect(rows > 0 && rows < 300, "\(rows) rows in the DOM")
        }
    }

    /// A filtered Events page follows the server's filter: during a burst in which two apps report, it shows the events
    /// of the app it is filtered to as they arrive, newest first, with their count, none of the other app's, and it
    /// never asks `/api/events` again for them; paused, it holds what matches and counts it on the pill; a second tab
    /// with the same filter shares its stream.
    @Test func aFilteredEventsPageShowsTheMatchingEventsLiveWithoutReadingThePageAgain() async throws {
        try await withBrowser { fixture, browser in
            let wanted = AppIdentity(bundleID: "com.wanted.app", teamID: "WANTED1")
            let other = AppIdentity(bundleID: "com.other.app", teamID: "OTHER1")
            let (wantedSession, otherSession) = (UUID(), UUID())
            // Given five events of each app, and the Events page filtered to one of them
            try await fixture.console.history.append(Self.events(0..<5, session: wantedSession, name: "wanted", app: wanted)
                + Self.events(0..<5, session: otherSession, name: "other", app: other))
            try await browser.open(fixture.console.baseURL + "/#/events?q=app:com.wanted.app")
            try await browser.waitUntil("the page to be live", Self.isLive)
            try await browser.waitUntil("the five matching events",
                "return document.querySelector('.count-line')?.textContent.startsWith('5 events listed · 5 match');")
            // (every read of /api/events the page makes from here on is counted)
            try await browser.run("""
                window.__eventReads = 0;
                const fetched = window.fetch;
                window.fetch = (url, ...rest) => { if (String(url).includes('/api/events?')) window.__eventReads++; return fetched(url, ...rest); };
                """)
            // When 100 more of each arrive, in 20 commits mixing the two apps
            for batch in 0..<20 {
                let range = 5 + batch * 5..<5 + (batch + 1) * 5
                try await fixture.console.history.append(Self.events(range, session: wantedSession, name: "wanted", app: wanted)
                    + Self.events(range, session: otherSession, name: "other", app: other))
            }
            // Then the page lists the 105 events of the app it is filtered to, the newest on top, and counts every event
            try await browser.waitUntil("the 105 matching events listed and counted", timeout: 30,
                "return document.querySelector('.count-line')?.textContent.startsWith('105 events listed · 105 match · ');")
            try await waitForTotal(fixture, browser)
            let rows = "[...document.querySelectorAll('#events-table tr[data-event-id]')].map(r => r.innerText)"
            // (the table is drawn a frame after the count line changes)
            try await browser.waitUntil("wanted104 on top", "return (\(rows)[0] || '').includes('wanted104');")
            // And none of the other app's, without one more read of /api/events
            #expect(try await browser.run("return \(rows).filter(t => /other\\d/.test(t)).length;") as? Int == 0)
            #expect(try await browser.run("return window.__eventReads;") as? Int == 0)
            // When the page is paused and three more of each arrive
            try await browser.click("[data-action=pause]")
            try await fixture.console.history.append(Self.events(105..<108, session: wantedSession, name: "wanted", app: wanted)
                + Self.events(105..<108, session: otherSession, name: "other", app: other))
            // Then the pill counts the three that match, and resuming lists them on top
            try await browser.waitUntil("the pill", "return document.querySelector('#new-events-pill')?.textContent === '3 new events · show';")
            try await browser.click("#new-events-pill")
            try await browser.waitUntil("the held events listed",
                "return document.querySelector('.count-line')?.textContent.startsWith('108 events listed · 108 match');")
            // (the table is drawn a frame after the count line changes)
            try await browser.waitUntil("wanted107 on top", "return (\(rows)[0] || '').includes('wanted107');")
            #expect(try await browser.run("return window.__eventReads;") as? Int == 0)
            // When a second tab opens the same filter, which read its page at a later event than the first
            let first = try await browser.currentTab()
            let second = try await browser.newTab()
            try await browser.open(fixture.console.baseURL + "/#/events?q=app:com.wanted.app")
            try await browser.waitUntil("the second tab's page",
                "return document.querySelector('.count-line')?.textContent.startsWith('108 events listed · 108 match');")
            try await fixture.console.history.append(Self.events(108..<109, session: wantedSession, name: "wanted", app: wanted)
                + Self.events(108..<109, session: otherSession, name: "other", app: other))
            // Then both tabs list the next matching event, and the server holds one stream for the filter besides the one
            // for every event
            for tab in [second, first] {
                try await browser.switchTo(tab)
                try await browser.waitUntil("the next event in both tabs",
                    "return document.querySelector('.count-line')?.textContent.startsWith('109 events listed · 109 match');")
            }
            #expect(fixture.console.live.clientCount == 2, "\(fixture.console.live.clientCount) SSE clients")
        }
    }

    /// Waits until the Events page's count line ends with the history's total (the demo apps may still be reporting).
    func waitForTotal(_ fixture: ConsoleFixture, _ browser: WebDriver) async throws {
        let deadline = ContinuousClock.now + .seconds(20 * TestTime.scale)
        var line = ""
        var total = 0
        while ContinuousClock.now < deadline {
            total = try await fixture.console.history.count(matching: HistoryFilter())
            line = try await browser.run("return document.querySelector('.count-line')?.textContent ?? '';") as? String ?? ""
            if line.hasSuffix(" · \(total.formatted(.number.locale(Locale(identifier: "en_US")))) in total") { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the count line \"\(line)\" never gave the history's total, \(total)")
    }
}
