import AccessEnabler
import Foundation
import MicroHTTP
import PassHistory
import Testing
@testable import PassConsole

/// The console's shared live feed (one read of the history per commit for every client), in process: many clients,
/// half filtered; a client that stops reading; resumes with `Last-Event-ID` while events keep coming.
@Suite("Live feed")
struct LiveFeedTests {
    static let apps = [AppIdentity(bundleID: "com.live.a", teamID: "A"), AppIdentity(bundleID: "com.live.b", teamID: "B")]

    /// `count` events alternating between two apps (one session each), in commits of `batch`.
    static func ingest(_ history: HistoryDatabase, count: Int, batch: Int = 50, from start: Int = 0, pause: Duration = .zero) async throws {
        let sessions = [UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!, UUID(uuidString: "00000000-0000-0000-0000-00000000000B")!]
        let events = (start..<(start + count)).map { i in
            EntitlementEvent(sequence: i / 2 + 1, timestamp: Date(), sessionID: sessions[i % 2], deviceID: "device-\(i % 2)",
                app: apps[i % 2], requestorID: "REF30", mvpdID: nil, kind: .apiCall(name: "live\(i)", arguments: [:]))
        }
        for offset in stride(from: 0, to: events.count, by: batch) {
            try await history.append(Array(events[offset..<min(offset + batch, events.count)]))
            if pause > .zero { try await Task.sleep(for: pause) }
        }
    }

    static var appA: HistoryFilter {
        var filter = HistoryFilter()
        filter.bundleID = "com.live.a"
        return filter
    }

    /// The IDs of the stored events matching `filter` above `after`, in order.
    static func expected(_ history: HistoryDatabase, _ filter: HistoryFilter, after: Int64 = 0) async throws -> [Int64] {
        try await history.page(matching: filter, after: after, limit: 100_000).events.map(\.id)
    }

    @Test("50 clients, half filtered, each receive every event they match, in order, once; one read per commit for all")
    func manyClientsHalfFiltered() async throws {
        let history = try HistoryDatabase.inMemory()
        try await Self.ingest(history, count: 10)  // events before the clients: not theirs
        let feed = LiveFeed(history: history)
        defer { feed.stop() }
        let reader = LiveFeedReader()
        let start = try await history.latestCursor() ?? 0
        for index in 0..<50 {
            reader.add(try await feed.subscribe(filter: index.isMultiple(of: 2) ? .all : Self.appA, after: nil))
        }
        #expect(feed.clientCount == 50)

        try await Self.ingest(history, count: 2000, batch: 40, from: 10)

        let all = try await Self.expected(history, .all, after: start)
        let onlyA = try await Self.expected(history, Self.appA, after: start)
        #expect(all.count == 2000 && onlyA.count == 1000)
        let complete = await reader.wait { received in
            received.enumerated().allSatisfy { index, got in got.ids.count >= (index.isMultiple(of: 2) ? all : onlyA).count }
        }
        #expect(complete)
        for index in 0..<50 {
            let got = reader.received(index)
            #expect(got.ids == (index.isMultiple(of: 2) ? all : onlyA), "client \(index): \(got.ids.count) events")
            #expect(got.resync == nil)
        }
        #expect(feed.resyncCount == 0)
    }

    @Test("a client that stops reading is sent a resync notice and dropped; the others get everything; it resumes without a gap")
    func aStalledClientResyncsAndResumes() async throws {
        let history = try HistoryDatabase.inMemory()
        let feed = LiveFeed(history: history)
        let limits = feed.limits
        defer { feed.stop() }
        let reader = LiveFeedReader()
        for index in 0..<10 { reader.add(try await feed.subscribe(filter: index < 5 ? .all : Self.appA, after: 0)) }
        // Given a client that stops reading (a frozen tab, a stalled network), with room for 32 KB
        let stalled = reader.add(try await feed.subscribe(filter: .all, after: 0, bufferLimit: 32 * 1024), paused: true)

        // When far more than its buffer arrives
        try await Self.ingest(history, count: 1000, batch: 25)

        // Then it was sent the resync notice and forgotten (nothing more is queued for it)
        let all = try await Self.expected(history, .all), onlyA = try await Self.expected(history, Self.appA)
        #expect(await reader.wait { received in
            (0..<10).allSatisfy { received[$0].ids.count >= ($0 < 5 ? all : onlyA).count }
        })
        #expect(feed.resyncCount == 1)
        #expect(feed.clientCount == 10)
        // And the others got every event, in order, once
        for index in 0..<10 { #expect(reader.received(index).ids == (index < 5 ? all : onlyA)) }

        // When it reads again: what it was sent, then the notice, then the end of its stream
        reader.resume(stalled)
        #expect(await reader.wait { $0[stalled].ended })
        let before = reader.received(stalled)
        let resync = try #require(before.resync)
        #expect(before.ids.last.map { $0 <= resync } ?? true)
        #expect(before.ids.count < all.count)
        #expect(before.text.contains("retry: \(limits.resyncRetryMilliseconds)"))

        // And, reconnecting with Last-Event-ID (the notice's ID) while events keep coming, it gets the rest: no gap,
        // nothing twice, then the live ones
        let resumed = reader.add(try await feed.subscribe(filter: .all, after: resync))
        try await Self.ingest(history, count: 200, batch: 20, from: 1000)
        let everything = try await Self.expected(history, .all)
        #expect(await reader.wait { $0[resumed].ids.count + before.ids.count >= everything.count })
        #expect(before.ids + reader.received(resumed).ids == everything)
    }

    @Test("resuming from an old ID while commits keep coming joins the shared feed without a gap or a duplicate",
        arguments: [5000, 40])
    func resumeRacesLiveCommits(held: Int) async throws {
        let history = try HistoryDatabase.inMemory()
        try await Self.ingest(history, count: 3000, batch: 500)
        var limits = LiveFeed.Limits()
        // 40: more than that arrives while the gap is read, so the held events are dropped and read as well.
        limits.held = held
        let feed = LiveFeed(history: history, limits: limits)
        defer { feed.stop() }
        let reader = LiveFeedReader()
        reader.add(try await feed.subscribe(filter: .all, after: nil))  // a live client, so the feed reads each commit
        let writer = Task { try await Self.ingest(history, count: 1000, batch: 10, from: 3000, pause: .milliseconds(2)) }
        try await Task.sleep(for: .milliseconds(20))
        let resumed = reader.add(try await feed.subscribe(filter: .all, after: 100))
        let filtered = reader.add(try await feed.subscribe(filter: Self.appA, after: 1))
        try await writer.value
        let all = try await Self.expected(history, .all, after: 100)
        let onlyA = try await Self.expected(history, Self.appA, after: 1)
        #expect(await reader.wait { $0[resumed].ids.count >= all.count && $0[filtered].ids.count >= onlyA.count })
        #expect(reader.received(resumed).ids == all)
        #expect(reader.received(filtered).ids == onlyA)
        #expect(feed.resyncCount == 0)
    }

    @Test("clients that leave are forgotten")
    func leavingClientsAreRemoved() async throws {
        let history = try HistoryDatabase.inMemory()
        let feed = LiveFeed(history: history)
        defer { feed.stop() }
        let reader = LiveFeedReader()
        for _ in 0..<5 { reader.add(try await feed.subscribe(filter: .all, after: nil)) }
        #expect(feed.clientCount == 5)
        reader.finishAll()
        #expect(feed.clientCount == 0)
    }
}

/// A viewer's stream (named operators, issue #18 item 3): every event's view goes through the client's rewrite, live
/// and when it resumes from an earlier ID, while other clients get the shared bytes.
@Suite("Live feed rewrite")
struct LiveFeedRewriteTests {
    @Test("a rewriting client gets every view rewritten, live and in its catch-up; a plain client the stored bytes")
    func rewriteLiveAndCatchUp() async throws {
        let history = try HistoryDatabase.inMemory()
        try await LiveFeedTests.ingest(history, count: 4)  // read by the resuming client's catch-up
        let feed = LiveFeed(history: history)
        defer { feed.stop() }
        let reader = LiveFeedReader()
        let mark: @Sendable (String) -> String = { view in view.replacingOccurrences(of: "\"live", with: "\"REWRITTEN-live") }
        reader.add(try await feed.subscribe(filter: .all, after: 0, rewrite: mark))  // resumes: 4 from the history
        reader.add(try await feed.subscribe(filter: .all, after: nil))
        try await LiveFeedTests.ingest(history, count: 4, from: 4)  // live for both
        let complete = await reader.wait { received in received[0].ids.count >= 8 && received[1].ids.count >= 4 }
        #expect(complete)
        let rewritten = reader.received(0).text, plain = reader.received(1).text
        for i in 0..<8 { #expect(rewritten.contains("REWRITTEN-live\(i)"), "event \(i) rewritten: \(rewritten.prefix(400))") }
        #expect(!plain.contains("REWRITTEN") && plain.contains("live4"))
    }
}
