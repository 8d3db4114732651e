import AccessEnabler
import Foundation
import GRDB
import Testing
@testable import PassHistory

@Suite("HistoryDatabase")
struct HistoryDatabaseTests {
    @Test("a fresh file is migrated to the latest schema, WAL, and reopening keeps the data")
    func migrationsAndReopen() async throws {
        let directory = try TemporaryDirectory()
        var factory = EventFactory()
        let events = factory.flow()
        do {
            let history = try HistoryDatabase(path: directory.historyPath)
            #expect(try history.appliedMigrations() == ["v1", "v2-console"])
            let mode = try await history.writer.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
            #expect(mode == "wal")
            try history.append(events)
        }
        let reopened = try HistoryDatabase(path: directory.historyPath)
        #expect(try reopened.appliedMigrations() == ["v1", "v2-console"])
        #expect(try reopened.eventCount == events.count)
        #expect(try reopened.page().events.map(\.event) == events)
    }

    @Test("a file written before v2 upgrades in place: its events get their app and HTTP status columns")
    func upgradesFromV1() async throws {
        let queue = try DatabaseQueue()
        try HistoryDatabase.migrator.migrate(queue, upTo: "v1")
        try await queue.write { db in
            try db.execute(sql: """
                INSERT INTO session (id, deviceID, bundleID, teamID, platform, firstSeen, lastSeen, eventCount)
                VALUES ('S1', 'd', 'com.old.app', 'T', 'ios', 0, 0, 1)
                """)
            try db.execute(sql: """
                INSERT INTO event (sessionID, sequence, timestamp, kind, deviceID, summary, payload)
                VALUES ('S1', 0, 0, 'apiCall', 'd', 'call x()', '{}')
                """)
        }
        let history = try HistoryDatabase(writer: queue)
        #expect(try history.appliedMigrations() == ["v1", "v2-console"])
        let bundle = try await queue.read { try String.fetchOne($0, sql: "SELECT bundleID FROM event") }
        #expect(bundle == "com.old.app")
    }

    @Test("the schema enforces its invariants")
    func schemaInvariants() async throws {
        try await withHistory { history in
            let (indexes, foreignKeys) = try await history.writer.read { db in
                (try db.indexes(on: "event").map(\.columns), try db.foreignKeys(on: "event"))
            }
            #expect(indexes.contains(["sessionID", "sequence"]))
            for column in ["timestamp", "kind", "requestorID", "mvpdID", "deviceID"] {
                #expect(indexes.contains([column]))
            }
            #expect(foreignKeys.map(\.destinationTable) == ["session"])
            // An event without its session is refused by the foreign key.
            await #expect(throws: DatabaseError.self) {
                try await history.writer.write { db in
                    try db.execute(sql: """
                        INSERT INTO event (sessionID, sequence, timestamp, kind, deviceID, summary, payload)
                        VALUES ('nope', 1, 0, 'error', 'd', 's', '{}')
                        """)
                }
            }
        }
    }

    @Test("append then page returns the events in order, decoded equal to what was appended")
    func appendAndPage() async throws {
        try await withHistory { history in
            var factory = EventFactory()
            let events = factory.flow()
            #expect(try history.append(events) == events.count)
            let page = try history.page(limit: 100)
            #expect(page.events.map(\.event) == events)
            #expect(page.events.map(\.id) == page.events.map(\.id).sorted())
            #expect(page.nextCursor == nil)
            #expect(page.events[2].summary == "GET …/api/v1/config/REF30 → 200 (12 ms)")
            #expect(page.events[5].summary == "callback setAuthenticationStatus(1)")
            let payload = try await history.writer.read { try String.fetchOne($0, sql: "SELECT payload FROM event LIMIT 1") }
            let decoded = try JSONDecoder().decode(EntitlementEvent.self, from: Data((payload ?? "").utf8))
            #expect(decoded == events[0])
        }
    }

    @Test("sending a batch again stores nothing new")
    func idempotentAppend() async throws {
        try await withHistory { history in
            var factory = EventFactory()
            let events = factory.flow()
            try history.append(Array(events.prefix(5)))
            #expect(try history.append(events) == 3)
            #expect(try history.append(events) == 0)
            #expect(try history.eventCount == events.count)
            #expect(try history.sessions().first?.eventCount == events.count)
            #expect(try history.append([]) == 0)
        }
    }

    @Test("cursor paging visits every event once")
    func cursorPaging() async throws {
        try await withHistory { history in
            var factory = EventFactory()
            let events = (0..<25).map { factory.make(.apiCall(name: "call\($0)", arguments: [:])) }
            try history.append(events)
            var seen: [EntitlementEvent] = []
            var cursor: Int64?
            var pages = 0
            repeat {
                let page = try history.page(after: cursor, limit: 10)
                seen += page.events.map(\.event)
                cursor = page.nextCursor
                pages += 1
            } while cursor != nil
            #expect(pages == 3)
            #expect(seen == events)
            let exact = try history.page(limit: 25)
            #expect(exact.events.count == 25 && exact.nextCursor == nil)
        }
    }
}
