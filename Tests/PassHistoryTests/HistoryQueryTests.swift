import AccessEnabler
import Foundation
import HistoryTestSupport
import GRDB
import Testing
@testable import PassHistory

/// Pages and counts of every kind of filter, answered by SQLite through the schema's indexes, must be exactly the
/// events the in-memory rule (``HistoryFilter/matches(_:)``, what the live feed uses) picks from every stored event —
/// after deletions and batches sent again too; and the benchmark's filters must be read through an index, not a scan.
@Suite("History filters and their indexes")
struct HistoryQueryTests {
    /// 3,000 events from five interleaved sessions on three devices, with Programmers, MVPDs, statuses and kinds
    /// spread unevenly (a 5xx is rare), sent in batches of 170.
    static func seed(_ history: any EventHistory) async throws -> [EntitlementEvent] {
        var factories = (0..<5).map { n in
            EventFactory(deviceID: "device-\(n % 3)", app: AppIdentity(bundleID: "com.example.app\(n % 2)", teamID: "T"),
                requestorID: ["REF30", "NBC", nil][n % 3], start: Date(timeIntervalSinceReferenceDate: 780_000_000 + Double(n)))
        }
        var events: [EntitlementEvent] = []
        for i in 0..<3000 {
            let kind: EntitlementEvent.Kind = switch i % 5 {
            case 0: .apiCall(name: "getAuthorization", arguments: [:])
            case 1: .httpExchange(exchange: HTTPExchange(method: "GET", url: "http://h/x\(i)", parameters: [:],
                status: i % 97 == 1 ? 503 : (i % 3 == 0 ? nil : 200), responseBody: nil, failure: i % 3 == 0 ? "timeout" : nil,
                durationMs: 1))
            case 2: .callback(callback: .setToken(token: "t", resource: "news\(i % 7)"))
            case 3: .tracking(event: .authorizationDetection, data: ["YES"])
            default: .error(code: "E\(i % 11)", message: "m")
            }
            events.append(factories[i % 5].make(kind, mvpd: i % 4 == 0 ? nil : ["Dish", "Comcast", "Spectrum"][i % 3]))
        }
        for start in stride(from: 0, to: events.count, by: 170) { try await history.append(Array(events[start..<min(start + 170, events.count)])) }
        return events
    }

    static func filters(sessions: [UUID]) -> [HistoryFilter] {
        var filters: [HistoryFilter] = [
            .all, HistoryFilter(requestorID: "NBC"), HistoryFilter(mvpdID: "Dish", kinds: [.callback, .error]),
            HistoryFilter(deviceID: "device-1"), HistoryFilter(sessionID: sessions[3]), HistoryFilter(sessionID: UUID()),
            HistoryFilter(kinds: [.tracking], text: "YES"), HistoryFilter(text: "E7"),
            HistoryFilter(requestorID: "REF30", from: Date(timeIntervalSinceReferenceDate: 780_000_300),
                until: Date(timeIntervalSinceReferenceDate: 780_000_500)),
            HistoryFilter(from: Date(timeIntervalSinceReferenceDate: 780_000_700)),
        ]
        for status in HistoryFilter.StatusClass.allCases {
            var filter = HistoryFilter()
            filter.httpStatus = status
            filters.append(filter)
        }
        var excluding = HistoryFilter(kinds: [.callback, .error])
        excluding.excludedMvpdIDs = ["Dish", "Comcast"]
        excluding.excludedBundleIDs = ["com.example.app1"]
        filters.append(excluding)
        var app = HistoryFilter(requestorID: "REF30")
        app.bundleID = "com.example.app0"
        app.excludedKinds = [.apiCall]
        filters.append(app)
        return filters
    }

    /// What the in-memory rule picks from every stored event, in ID order.
    static func scan(_ history: any EventHistory, _ filter: HistoryFilter) async throws -> [Int64] {
        try await history.page(limit: 1_000_000).events.filter(filter.matches).map(\.id)
    }

    static func expectIndexAgrees(_ history: any EventHistory, sessions: [UUID]) async throws {
        for filter in filters(sessions: sessions) {
            let expected = try await scan(history, filter)
            #expect(try await history.count(matching: filter) == expected.count, "count of \(filter)")
            // Oldest first in pages of 37, and newest first in pages of 200, as the console pages.
            var forward: [Int64] = [], cursor: Int64?
            repeat {
                let page = try await history.page(matching: filter, after: cursor, limit: 37)
                forward += page.events.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(forward == expected, "oldest first: \(filter)")
            var backward: [Int64] = [], before: Int64?
            repeat {
                let page = try await history.rawPage(matching: filter, before: before, limit: 200)
                backward += page.events.ids
                before = page.nextCursor
            } while before != nil
            #expect(backward == expected.reversed(), "newest first: \(filter)")
        }
    }

    @Test("pages and counts equal the in-memory rule over every event, for every kind of criterion", arguments: HistoryBackend.allCases)
    func agreesWithScan(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            let events = try await Self.seed(history)
            let sessions = Array(Set(events.map(\.sessionID))).sorted { $0.uuidString < $1.uuidString }
            #expect(try await history.eventCount == 3000)
            try await Self.expectIndexAgrees(history, sessions: sessions)
        }
    }

    @Test("pages with counts, after a cursor and by time window equal the in-memory rule", arguments: HistoryBackend.allCases)
    func pagesWithCountsAndWindows(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            let events = try await Self.seed(history)
            let sessions = Array(Set(events.map(\.sessionID))).sorted { $0.uuidString < $1.uuidString }
            let stored = try await history.page(limit: 1_000_000).events
            for filter in Self.filters(sessions: sessions) {
                let expected = stored.filter(filter.matches)
                // The newest 50, the counts capped at 400.
                let page = try await history.rawPageWithCounts(matching: filter, before: nil, after: nil, limit: 50, countLimit: 400)
                #expect(page.events.ids == expected.suffix(50).reversed().map(\.id), "\(filter)")
                #expect(page.nextCursor == (expected.count > 50 ? page.events.ids.last : nil), "\(filter)")
                #expect(page.total == 3000)
                // No filter: every event matches, counted from the sessions without a cap.
                let cap = filter.isEmpty ? Int.max : 400
                #expect(page.matching == min(expected.count, cap) && page.matchingCapped == (expected.count > cap), "\(filter)")
                // Oldest first after a cursor.
                if expected.count > 1 {
                    let after = try await history.rawPageWithCounts(matching: filter, before: nil, after: expected[0].id, limit: 30, countLimit: 400)
                    #expect(after.events.ids == expected.dropFirst().prefix(30).map(\.id), "after: \(filter)")
                }
                // The last 60 seconds of the newest matching event: every match newer than the newest one older.
                let window = try await history.rawWindowPageWithCounts(matching: filter, before: nil, seconds: 60, limit: 2000, countLimit: 400)
                guard let newest = expected.max(by: { $0.id < $1.id }) else {
                    #expect(window.events.ids.isEmpty && window.window == nil, "\(filter)")
                    continue
                }
                let start = newest.event.timestamp.timeIntervalSinceReferenceDate - 60
                let boundary = expected.last { $0.event.timestamp.timeIntervalSinceReferenceDate < start }?.id ?? 0
                #expect(window.events.ids == expected.filter { $0.id > boundary }.reversed().map(\.id), "window: \(filter)")
                #expect(window.window == Date(timeIntervalSinceReferenceDate: start)...newest.event.timestamp, "window: \(filter)")
                // (The window's count is capped even without a filter: the SQLite history's answer, kept.)
                #expect(window.matching == min(expected.count, 400) && window.total == 3000)
            }
        }
    }

    @Test("after pruning by count and age and deleting a session, pages and counts still equal the in-memory rule", arguments: HistoryBackend.allCases)
    func agreesAfterDeletions(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            let events = try await Self.seed(history)
            let sessions = Array(Set(events.map(\.sessionID))).sorted { $0.uuidString < $1.uuidString }
            // 600 oldest go by count, then a session, then a time cut.
            #expect(try await history.prune(.init(maxEvents: 2400, maxAge: .seconds(3600 * 24 * 365 * 100))) == 600)
            try await Self.expectIndexAgrees(history, sessions: sessions)
            #expect(try await history.deleteSession(sessions[1]))
            #expect(try await history.eventCount == 1920)
            try await Self.expectIndexAgrees(history, sessions: sessions)
            let cutoff = events[2000].timestamp
            let now = cutoff.addingTimeInterval(3600)
            let deleted = try await history.prune(.init(maxEvents: 10_000, maxAge: .seconds(3600)), now: now)
            #expect(deleted > 0)
            #expect(try await history.count(matching: HistoryFilter(until: cutoff)) == 0)
            try await Self.expectIndexAgrees(history, sessions: sessions)
            // Every session's count is what its events are.
            for session in try await history.sessions() {
                let stored = try await history.count(matching: HistoryFilter(sessionID: session.id))
                #expect(session.eventCount == stored)
            }
        }
    }

    @Test("batches sent again, in part or out of order, add nothing twice", arguments: HistoryBackend.allCases)
    func resendsAreIgnored(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            let events = try await Self.seed(history)
            #expect(try await history.append(Array(events[1000..<1500])) == 0)
            #expect(try await history.append(Array(events.suffix(300).reversed())) == 0)
            var late = EventFactory(sessionID: events[0].sessionID, deviceID: "device-0")
            late.sequence = -5  // sequences below what the session has stored, never sent before
            let missed = (0..<3).map { _ in late.make(.apiCall(name: "late", arguments: [:])) }
            #expect(try await history.append(missed + missed) == 3)
            #expect(try await history.eventCount == 3003)
            let sessions = Array(Set(events.map(\.sessionID))).sorted { $0.uuidString < $1.uuidString }
            try await Self.expectIndexAgrees(history, sessions: sessions)
        }
    }

    @Test("event IDs are never handed out twice, even after the newest events were deleted", arguments: HistoryBackend.allCases)
    func idsNeverReused(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            var a = EventFactory(), b = EventFactory()
            try await history.append(a.flow())
            try await history.append(b.flow())
            let newest = try #require(try await history.latestCursor())
            #expect(try await history.deleteSession(b.sessionID))
            try await history.append(a.flow())
            let ids = try await history.page(limit: 100).events.map(\.id)
            #expect(ids.count == 16)
            #expect(ids.suffix(8).allSatisfy { $0 > newest })
        }
    }
}
