import AccessEnabler
import Foundation
import HistoryTestSupport
import GRDB
import Testing
@testable import PassHistory

/// Schema v6: SQLite's own indexes serve the history's filters (the block index of v4 was measured slower and is
/// gone, see `Sources/PassHistory/README.md`), and a file written before upgrades in place.
@Suite("History indexes (schema v6)")
struct HistoryIndexTests {
    /// The filters of `passconsole-bench bench-console`'s page table (text excepted: a `LIKE` walk in ID order), and the
    /// other status filters, with the index each must be read through.
    static func benchmarkFilters(session: UUID) -> [(String, HistoryFilter, [String])] {
        func status(_ status: HistoryFilter.StatusClass) -> HistoryFilter {
            var filter = HistoryFilter()
            filter.httpStatus = status
            return filter
        }
        var app = HistoryFilter()
        app.bundleID = "COM.example.app7.ios"
        var code = HistoryFilter()
        code.httpStatusCodes = 503...503
        return [
            ("programmer:REF30 event:callback", HistoryFilter(requestorID: "ref30", kinds: [.callback]), ["event_on_requestor"]),
            ("status:4xx", status(.clientError), ["event_on_statusClass"]),
            ("status:5xx", status(.serverError), ["event_on_statusClass"]),
            ("status:failed", status(.failed), ["event_on_status"]),
            ("status:error", status(.error), ["event_on_errorStatus"]),
            ("status:503", code, ["event_on_status"]),
            ("one session", HistoryFilter(sessionID: session), ["event_on_session"]),
            ("app:com.example.app7.ios", app, ["event_on_bundle"]),
            ("device:device-42", HistoryFilter(deviceID: "DEVICE-42"), ["event_on_device"]),
            ("mvpd:Dish", HistoryFilter(mvpdID: "dish"), ["event_on_mvpd"]),
        ]
    }

    /// 8,000 events shaped as the benchmark's (`HistoryWorkload`): 200 sessions of 40 events, one app of 40 and one
    /// device of 500 each, five Programmers and MVPDs, one exchange in eight with a rare 403, 503 or no answer.
    static func seedBenchmarkShape(_ history: any EventHistory) async throws -> [UUID] {
        var sessions: [UUID] = []
        let requestors = ["REF30", "SPORTS1", "KIDSNET", "NEWS24", "MOVIES"], mvpds = ["Cablevision", "Spectrum", "Dish", "Comcast", "Verizon"]
        var index = 0
        for number in 0..<200 {
            var factory = EventFactory(deviceID: "device-\(number % 500)",
                app: AppIdentity(bundleID: "com.example.app\(number % 40).ios", teamID: "T"))
            sessions.append(factory.sessionID)
            var events: [EntitlementEvent] = []
            for step in 0..<40 {
                index += 1
                let kind: EntitlementEvent.Kind = switch step % 8 {
                case 0: .apiCall(name: "getAuthorization", arguments: [:])
                case 2: .httpExchange(exchange: HTTPExchange(method: "POST", url: "http://h/authorize", parameters: [:],
                    status: index % 50 == 2 ? 403 : (index % 97 == 2 ? 503 : (index % 89 == 2 ? nil : 200)), responseBody: nil,
                    failure: nil, durationMs: 3))
                case 4: .callback(callback: .setToken(token: "t", resource: "news"))
                default: .tracking(event: .authorizationDetection, data: ["YES"])
                }
                events.append(factory.make(kind, mvpd: mvpds[(index / 7) % 5], requestor: requestors[index % 5]))
            }
            try await history.append(events)
        }
        return sessions
    }

    /// SQLite's plan for a page of `filter`, newest first: one `detail` line per step.
    static func plan(_ history: HistoryDatabase, _ filter: HistoryFilter) async throws -> [String] {
        try await history.writer.read { db in
            let (sql, arguments) = filter.query(select: "id", above: 0, below: .max, newestFirst: true, limit: 201)
            return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments)
                .map { $0["detail"] as String }
        }
    }

    @Test("every filter of the benchmark's page table is read through its index, never a scan of the events")
    func filtersUseIndexes() async throws {
        try await withHistory { history in
            // The benchmark's shape matters: for an app with half the events, walking them all newest first is the
            // better plan (and SQLite's choice); for 1 app in 40 or 1 device in 500 the index is.
            let sessions = try await Self.seedBenchmarkShape(history)
            try await history.optimize()  // the statistics the console's maintenance keeps
            for (name, filter, indexes) in Self.benchmarkFilters(session: sessions[77]) {
                let plan = try await Self.plan(history, filter)
                for index in indexes {
                    #expect(plan.contains { $0.contains("INDEX \(index)") }, "\(name): \(plan)")
                }
                // No step reads the event table without an index.
                #expect(!plan.contains { $0.hasPrefix("SCAN event") && !$0.contains("INDEX") }, "\(name): \(plan)")
            }
            // Without a filter the newest page walks the rows backwards by ID (no sort).
            let newest = try await Self.plan(history, .all)
            #expect(!newest.contains { $0.contains("TEMP B-TREE") }, "\(newest)")
        }
    }

    /// SQLite's plan for what `rawPage` reads (IDs and stored views), newest first: `(parent, detail)` per step.
    static func pagePlan(_ history: HistoryDatabase, _ filter: HistoryFilter) async throws -> [(parent: Int, detail: String)] {
        try await history.writer.read { db in
            let (sql, arguments) = filter.query(select: "id, payload", above: 0, below: .max, newestFirst: true, limit: 201)
            return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { ($0["parent"], $0["detail"]) }
        }
    }

    @Test("a page of a device or an app, rare or holding most events, reads its own index newest first: no sort, no walk")
    func deviceAndAppPagesReadTheirIndex() async throws {
        try await withHistory { history in
            // 3,200 events of one app and 40 of another; v6–v8 read the big app walking the events and the small one
            // sorting IDs from event_on_session (both ~50 ms at 10M events); schema v9 gives each its own index.
            for number in 0..<81 {
                var factory = EventFactory(deviceID: "device-\(number % 40)",
                    app: AppIdentity(bundleID: number == 80 ? "com.example.small.ios" : "com.example.big.ios", teamID: "T"))
                try await history.append((0..<5).flatMap { _ in factory.flow() })
            }
            try await history.optimize()
            var big = HistoryFilter(), small = HistoryFilter(), device = HistoryFilter(deviceID: "DEVICE-7")
            big.bundleID = "COM.example.BIG.ios"
            small.bundleID = "com.example.small.ios"
            device.excludedBundleIDs = ["com.example.SMALL.ios"]
            for (filter, index, count) in [(big, "event_on_bundle", 3200), (small, "event_on_bundle", 40), (device, "event_on_device", 80)] {
                let plan = try await Self.pagePlan(history, filter)
                let text = plan.map(\.detail).joined(separator: "\n")
                #expect(plan.contains { $0.detail.contains("INDEX \(index)") }, "\(filter):\n\(text)")
                #expect(!plan.contains { $0.detail.contains("TEMP B-TREE") || $0.detail == "SCAN event" }, "\(filter):\n\(text)")
                // The same pages, newest first, as the filter's definition (matched in Swift, not in SQL).
                let matching = try await history.page(limit: 100_000).events.filter { filter.matches($0) }.map(\.id)
                #expect(matching.count == count)
                #expect(try await history.rawPage(matching: filter, limit: 30).events.ids == Array(matching.reversed().prefix(30)))
                let second = try await history.rawPage(matching: filter, before: matching[matching.count - 30], limit: 30).events.ids
                #expect(second == Array(matching.reversed().dropFirst(30).prefix(30)))
            }
        }
    }

    @Test("on PostgreSQL, every filter of the benchmark's page table and a rare text are read through an index, never a scan of the events")
    func postgresFiltersUseIndexes() async throws {
        let history = try await openPostgresHistory()
        let sessions = try await Self.seedBenchmarkShape(history)
        var filters = Self.benchmarkFilters(session: sessions[77]).map { name, filter, _ in (name, filter, Self.postgresIndexes[name] ?? []) }
        // 1 exchange in 50 answered 403: the trigram index finds them (a common word is read walking the IDs back).
        filters.append(("text:→ 403", HistoryFilter(text: "→ 403"), ["event_on_summary"]))
        for (name, filter, indexes) in filters {
            let plan = try await history.newestPagePlan(matching: filter, bitmapOnly: name.hasPrefix("text:"))
            let text = plan.joined(separator: "\n")
            // PostgreSQL picks among the indexes by its statistics: any of those listed serves the filter.
            #expect(indexes.contains { index in plan.contains { $0.contains("using \(index) on event") || $0.contains("Index Scan on \(index)") } },
                "\(name) not through \(indexes):\n\(text)")
            #expect(!plan.contains { $0.contains("Seq Scan on event") }, "\(name):\n\(text)")
        }
        // Without a filter the newest page walks the primary key backwards (no sort).
        let newest = try await history.newestPagePlan(matching: .all)
        #expect(newest.contains { $0.contains("Backward using event_pkey") } && !newest.contains { $0.contains("Sort") }, "\(newest)")
        await history.close()
    }

    /// The PostgreSQL indexes that may serve each benchmark filter (``benchmarkFilters(session:)``'s names) at the
    /// benchmark's shape. A filter matching 1 event in 5 (an MVPD) is read walking the primary key back to a page, as
    /// SQLite would at that share; a filter on a status in the error set may be read through the (smaller) error index;
    /// a device or an app through its own index (schema v4).
    static let postgresIndexes: [String: [String]] = [
        "programmer:REF30 event:callback": ["event_on_requestor"], "status:4xx": ["event_on_status_class"],
        "status:5xx": ["event_on_status_class"], "status:failed": ["event_on_status", "event_on_error_status"],
        "status:error": ["event_on_error_status"], "status:503": ["event_on_status", "event_on_error_status"],
        "one session": ["event_on_session"], "app:com.example.app7.ios": ["event_on_bundle"],
        "device:device-42": ["event_on_device"], "mvpd:Dish": ["event_on_mvpd", "event_pkey"],
    ]

    @Test("a v5 history file with events opens, drops the block index, gains the indexes, stores views and answers the same pages")
    func migratesFromV5() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.historyPath
        var pagesBefore: [[Int64]] = [], countsBefore: [Int] = []
        var sessions: [UUID] = [], events: [EntitlementEvent] = []
        do {
            // A file as the last v5 build wrote it: the schema up to v5, events appended, block index rows present.
            let old = try HistoryDatabase(writer: DatabasePool(path: path), upTo: "v5-session-search")
            events = try await HistoryQueryTests.seed(old)
            sessions = Array(Set(events.map(\.sessionID))).sorted { $0.uuidString < $1.uuidString }
            #expect(try await old.appliedMigrations().last == "v5-session-search")
            // The answers, read before the rows are put back in their v5 form.
            // (Pages and counts by the in-memory rule: a device's or an app's query names columns v9 creates.)
            let all = try await old.page(limit: 10_000).events
            for filter in HistoryQueryTests.filters(sessions: sessions) {
                pagesBefore.append(Array(all.filter { filter.matches($0) }.map(\.id).reversed().prefix(200)))
                countsBefore.append(all.filter { filter.matches($0) }.count)
            }
            let appended = events
            try await old.writer.write { db in
                // Rows as v1–v6 stored them: the event's JSON with dates as numbers, the time in seconds since 1970.
                for (offset, event) in appended.enumerated() {
                    try db.execute(sql: "UPDATE event SET payload = ?, timestamp = ? WHERE id = ?",
                        arguments: [EventCoding.payload(of: event), event.timestamp.timeIntervalSince1970, offset + 1])
                }
                try db.execute(sql: "INSERT INTO event_facet VALUES (1, 'callback', 0, 1, 0, 0, 0)")
                try db.execute(sql: "INSERT INTO event_block VALUES (0, 0, 1)")
                try db.execute(sql: "INSERT INTO session_mvpd (mvpdID, sessionKey) SELECT 'Dish', key FROM session")
            }
        }
        let history = try HistoryDatabase(path: path)
        #expect(try await history.appliedMigrations().contains("v6-sqlite-indexes"))
        let (tables, indexes) = try await history.writer.read { db in
            (try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"),
             try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'"))
        }
        for gone in ["event_facet", "event_block", "session_mvpd"] { #expect(!tables.contains(gone)) }
        for index in ["event_on_kind", "event_on_requestor", "event_on_mvpd", "event_on_session", "event_on_timestamp",
            "event_on_status", "event_on_statusClass", "event_on_errorStatus", "session_on_deviceID", "session_on_bundleID",
            "event_on_device", "event_on_bundle"]
        {
            #expect(indexes.contains(index), "\(index) missing")
        }
        #expect(try await history.eventCount == 3000)
        for (index, filter) in HistoryQueryTests.filters(sessions: sessions).enumerated() {
            #expect(try await history.rawPage(matching: filter, limit: 200).events.ids == pagesBefore[index], "\(filter)")
            #expect(try await history.count(matching: filter) == countsBefore[index], "\(filter)")
        }
        try await HistoryQueryTests.expectIndexAgrees(history, sessions: sessions)
        // Every event reads back exactly as appended, and its stored view is byte for byte what storing it now writes.
        let stored = try await history.page(limit: 10_000).events
        #expect(stored.map(\.event) == events)
        let fresh = try HistoryDatabase.inMemory()
        try await fresh.append(events)
        let views = try await history.writer.read { db in try String.fetchAll(db, sql: "SELECT payload FROM event ORDER BY id") }
        let freshViews = try await fresh.writer.read { db in try String.fetchAll(db, sql: "SELECT payload FROM event ORDER BY id") }
        #expect(views == freshViews)
        // New events continue after the IDs the v5 file handed out.
        let newest = try #require(try await history.latestCursor())
        var factory = EventFactory()
        try await history.append(factory.flow())
        #expect(try await history.latestPage(limit: 8).events.allSatisfy { $0.id > newest })
    }
}
