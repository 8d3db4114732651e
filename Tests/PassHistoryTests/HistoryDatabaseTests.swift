import AccessEnabler
import Foundation
import HistoryTestSupport
import GRDB
import Testing
@testable import PassHistory

@Suite("HistoryDatabase")
struct HistoryDatabaseTests {
    static let allMigrations = ["v1", "v2-console", "v3-compact-keys", "v4-block-index", "v5-session-search", "v6-sqlite-indexes", "v7-stored-views", "v8-operators",
        "v9-event-device-app"]

    @Test("a fresh file is migrated to the latest schema, WAL, and reopening keeps the data")
    func migrationsAndReopen() async throws {
        let directory = try TemporaryDirectory()
        var factory = EventFactory()
        let events = factory.flow()
        do {
            let history = try HistoryDatabase(path: directory.historyPath)
            #expect(try await history.appliedMigrations() == HistoryDatabaseTests.allMigrations)
            let mode = try await history.writer.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
            #expect(mode == "wal")
            try await history.append(events)
        }
        let reopened = try HistoryDatabase(path: directory.historyPath)
        #expect(try await reopened.appliedMigrations() == HistoryDatabaseTests.allMigrations)
        #expect(try await reopened.eventCount == events.count)
        #expect(try await reopened.page().events.map(\.event) == events)
    }

    @Test("a file written by v1 upgrades in place: events keep their IDs, sessions, filters, and the ID counter")
    func upgradesFromV1() async throws {
        let queue = try DatabaseQueue()
        try HistoryDatabase.migrator.migrate(queue, upTo: "v1")
        var factory = EventFactory(), otherFactory = EventFactory(sessionID: UUID(), deviceID: "d2")
        let events = factory.flow()
        let first = factory.sessionID, other = otherFactory.sessionID
        let call = otherFactory.make(.apiCall(name: "x", arguments: [:])), gone = otherFactory.make(.apiCall(name: "gone", arguments: [:]))
        try await queue.write { db in
            for (sessionID, bundle, device) in [(first, "com.old.app", "d1"), (other, "com.other.app", "d2")] {
                try db.execute(sql: """
                    INSERT INTO session (id, deviceID, bundleID, teamID, platform, firstSeen, lastSeen, eventCount)
                    VALUES (?, ?, ?, 'T', 'ios', 0, 0, ?)
                    """, arguments: [sessionID.uuidString, device, bundle, sessionID == other ? 1 : events.count])
            }
            for event in events + [call, gone] {
                try db.execute(sql: """
                    INSERT INTO event (sessionID, sequence, timestamp, kind, requestorID, mvpdID, deviceID, summary, payload)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [event.sessionID.uuidString, event.sequence, event.timestamp.timeIntervalSince1970,
                        EventKind(event.kind).rawValue, event.requestorID, event.mvpdID, event.deviceID, event.summary,
                        EventCoding.payload(of: event)])
            }
            // The newest row deleted: its ID must not be handed out again after the upgrade.
            try db.execute(sql: "DELETE FROM event WHERE sessionID = ? AND sequence = ?", arguments: [other.uuidString, gone.sequence])
        }
        let idsBefore = try await queue.read { try Int64.fetchAll($0, sql: "SELECT id FROM event ORDER BY id") }
        let history = try HistoryDatabase(writer: queue)
        #expect(try await history.appliedMigrations() == HistoryDatabaseTests.allMigrations)
        #expect(try await history.page(limit: 100).events.map(\.id) == idsBefore)
        #expect(try await history.page(matching: HistoryFilter(sessionID: factory.sessionID)).events.map(\.event) == events)
        var byApp = HistoryFilter()
        byApp.bundleID = "com.other.app"
        #expect(try await history.page(matching: byApp).events.map(\.event) == [call])
        #expect(try await history.page(matching: HistoryFilter(deviceID: "d2")).events.count == 1)
        #expect(try await history.session(other)?.bundleID == "com.other.app")
        // New events get IDs above every ID ever handed out, including the deleted one.
        let next = factory.flow()
        try await history.append(next)
        let newest = try await history.latestPage(limit: 1).events.first?.id ?? 0
        #expect(newest > (idsBefore.last ?? 0) + 1)
        #expect(try await history.eventCount == events.count * 2 + 1)
    }

    @Test("the schema: SQLite's indexes for the filters, no block index, and the invariants it enforces")
    func schemaInvariants() async throws {
        try await withHistory { history in
            let (eventIndexes, tables, sessionIndexes) = try await history.writer.read { db in
                (try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'event' AND sql IS NOT NULL"),
                 try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"),
                 try db.indexes(on: "session").map(\.columns))
            }
            // Filters are served by SQLite's own indexes (schema v6); the block index's tables are gone.
            #expect(Set(eventIndexes) == ["event_on_kind", "event_on_requestor", "event_on_mvpd", "event_on_session",
                "event_on_timestamp", "event_on_status", "event_on_statusClass", "event_on_errorStatus", "event_on_device", "event_on_bundle"])
            #expect(!tables.contains("event_facet") && !tables.contains("event_block") && !tables.contains("session_mvpd"))
            for column in ["id", "deviceID", "bundleID", "lastSeen"] { #expect(sessionIndexes.contains([column])) }
            // An unknown kind is refused; a negative event count is refused.
            await #expect(throws: DatabaseError.self) {
                try await history.writer.write { db in
                    try db.execute(sql: """
                        INSERT INTO event (id, sessionKey, sequence, timestamp, kind, summary, payload)
                        VALUES (1, 1, 1, 0, 'gossip', 's', '{}')
                        """)
                }
            }
            await #expect(throws: DatabaseError.self) {
                try await history.writer.write { db in
                    try db.execute(sql: """
                        INSERT INTO session (id, deviceID, bundleID, teamID, platform, firstSeen, lastSeen, eventCount)
                        VALUES ('x', 'd', 'b', 't', 'ios', 0, 0, -1)
                        """)
                }
            }
        }
    }

    @Test("append then page returns the events in order, decoded equal to what was appended", arguments: HistoryBackend.allCases)
    func appendAndPage(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            var factory = EventFactory()
            let events = factory.flow()
            #expect(try await history.append(events) == events.count)
            let page = try await history.page(limit: 100)
            #expect(page.events.map(\.event) == events)
            #expect(page.events.map(\.id) == page.events.map(\.id).sorted())
            #expect(page.nextCursor == nil)
            #expect(page.events[2].summary == "GET …/api/v1/config/REF30 → 200 (12 ms)")
            #expect(page.events[5].summary == "callback setAuthenticationStatus(1)")
            // The row holds the event as the API sends it: its wire JSON (these times are whole milliseconds, so
            // the view's ISO dates are exact) with its ID, kind and summary.
            struct View: Decodable {
                var event: EntitlementEvent
                var id: Int64
                var kind: String
                var summary: String
            }
            let stored = try await history.rawPage(matching: .all, before: nil, after: 0, limit: 1).events
            let view = try EntitlementEvent.Wire.decoder().decode(View.self, from: Data(stored.json))
            #expect(view.event == events[0])
            #expect(view.id == page.events[0].id && view.kind == "apiCall" && view.summary == page.events[0].summary)
        }
    }

    @Test("sending a batch again stores nothing new", arguments: HistoryBackend.allCases)
    func idempotentAppend(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            var factory = EventFactory()
            let events = factory.flow()
            try await history.append(Array(events.prefix(5)))
            #expect(try await history.append(events) == 3)
            #expect(try await history.append(events) == 0)
            #expect(try await history.eventCount == events.count)
            #expect(try await history.sessions().first?.eventCount == events.count)
            #expect(try await history.append([]) == 0)
        }
    }

    @Test("cursor paging visits every event once", arguments: HistoryBackend.allCases)
    func cursorPaging(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            var factory = EventFactory()
            let events = (0..<25).map { factory.make(.apiCall(name: "call\($0)", arguments: [:])) }
            try await history.append(events)
            var seen: [EntitlementEvent] = []
            var cursor: Int64?
            var pages = 0
            repeat {
                let page = try await history.page(after: cursor, limit: 10)
                seen += page.events.map(\.event)
                cursor = page.nextCursor
                pages += 1
            } while cursor != nil
            #expect(pages == 3)
            #expect(seen == events)
            let exact = try await history.page(limit: 25)
            #expect(exact.events.count == 25 && exact.nextCursor == nil)
        }
    }
}
