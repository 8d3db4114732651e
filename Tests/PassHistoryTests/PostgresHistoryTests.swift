import AccessEnabler
import Foundation
import HistoryTestSupport
import PassHistory
import PassHistoryPostgres
import PassTestSupport
import PostgresNIO
import Testing

/// What only the PostgreSQL history has to show: its migrations, that it stores what SQLite stores byte for byte, and
/// that two consoles on one database hand out each event ID once, in order. (Everything both must answer alike runs
/// against both in the other suites, `arguments: HistoryBackend.allCases`.)
@Suite("PostgresHistory")
struct PostgresHistoryTests {
    static let allMigrations = ["v1-events", "v2-audit-backups", "v3-operators", "v4-event-device-app"]

    @Test("a database written by the first schema upgrades in place: its events stay, the audit log and backups are added")
    func upgradesFromV1() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        var factory = EventFactory()
        let events = factory.flow()
        let old = try await PostgresHistory(host: cluster.host, port: cluster.port, username: cluster.user, password: cluster.password,
            database: database, migratingUpTo: 1)
        #expect(try await old.appliedMigrations() == ["v1-events"])
        try await old.append(events)
        // The first schema has no audit log nor backups: PostgreSQL says the tables do not exist (SQLSTATE 42P01)
        let noAudit = await #expect(throws: PSQLError.self) { try await old.auditEntries(limit: 1) }
        #expect(noAudit?.serverInfo?[.sqlState] == "42P01", "\(String(reflecting: noAudit))")
        let noBackups = await #expect(throws: PSQLError.self) { try await old.backups() }
        #expect(noBackups?.serverInfo?[.sqlState] == "42P01", "\(String(reflecting: noBackups))")
        await old.close()
        let history = try await cluster.openHistory(database: database)
        #expect(try await history.appliedMigrations() == Self.allMigrations)
        #expect(try await history.page().events.map(\.event) == events)
        try await history.audit("clear", detail: "d", remote: "r", operator: nil, at: Date())
        #expect(try await history.auditEntries(limit: 5).count == 1)
        // …and backups (issue #27 item 16: the title named them and nothing checked them)
        let backup = StorageBackup(reason: "clear after the upgrade", documents: [.init(domain: "phone/team:T", path: "p", contents: Data("t".utf8))])
        try await history.saveBackup(backup)
        let kept = try await history.backup(backup.id)
        #expect(kept?.reason == backup.reason && kept?.documents == backup.documents)
        // (the time as PostgreSQL keeps it: microseconds)
        #expect(abs((kept?.at.timeIntervalSince1970 ?? 0) - backup.at.timeIntervalSince1970) < 0.001)
        #expect(try await history.backups().map(\.id) == [backup.id])
        await history.close()
    }

    @Test("a new database is migrated and the migration recorded; opening it again migrates nothing and keeps the events")
    func migrationsAndReopen() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        var factory = EventFactory()
        let events = factory.flow()
        let history = try await cluster.openHistory(database: database)
        #expect(try await history.appliedMigrations() == Self.allMigrations)
        try await history.append(events)
        await history.close()
        let reopened = try await cluster.openHistory(database: database)
        #expect(try await reopened.appliedMigrations() == Self.allMigrations)
        #expect(try await reopened.page().events.map(\.event) == events)
        await reopened.close()
    }

    @Test("a wrong password is refused with PostgreSQL's own error at once, not retried until a timeout")
    func wrongPasswordRefused() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        let started = ContinuousClock.now
        let error = await #expect(throws: PSQLError.self) {
            let history = try await PostgresHistory(host: cluster.host, port: cluster.port, username: cluster.user, password: "wrong",
                database: database)
            await history.close()
        }
        // 28P01: invalid_password, PostgreSQL's own verdict.
        #expect(error?.serverInfo?[.sqlState] == "28P01")
        #expect(ContinuousClock.now - started < .seconds(TestTime.seconds(10)))
    }

    @Test("a postgres:// URL names the history: its parts read back, bad ones refused with the reason, the password never printed")
    func locationFromURL() async throws {
        let location = try PostgresLocation(url: "postgres://team%40ops:p%2Fss@db.example:6543/passconsole?sslmode=disable")
        #expect(location == PostgresLocation(host: "db.example", port: 6543, username: "team@ops", password: "p/ss", database: "passconsole",
            sslMode: .disable))
        #expect(location.description == "postgres://team%40ops:***@db.example:6543/passconsole?sslmode=disable")
        // libpq's TLS options: sslmode (prefer when left out) and sslrootcert
        #expect(try PostgresLocation(url: "postgres://u@h/d").sslMode == .prefer)
        #expect(try PostgresLocation(url: "postgres://u@h/d").description == "postgres://u@h:5432/d")
        for mode in PostgresLocation.SSLMode.allCases {
            #expect(try PostgresLocation(url: "postgres://u@h/d?sslmode=\(mode.rawValue)").sslMode == mode)
        }
        let verified = try PostgresLocation(url: "postgres://u@h/d?sslmode=verify-full&sslrootcert=/etc/ca.pem")
        #expect(verified.sslMode == .verifyFull && verified.sslRootCert == "/etc/ca.pem")
        #expect(verified.description == "postgres://u@h:5432/d?sslmode=verify-full&sslrootcert=/etc/ca.pem")
        #expect(try PostgresLocation(url: "postgresql://u@h/d") == PostgresLocation(host: "h", port: 5432, username: "u", password: nil, database: "d"))
        let refused: [(String, PostgresLocation.Problem)] = [
            ("db.example:5432", .scheme("db.example")), ("db example", .notAURL), ("mysql://u@h/d", .scheme("mysql")), ("postgres:///d", .noHost),
            ("postgres://u@h:0/d", .port(0)), ("postgres://u@h:70000/d", .port(70000)), ("postgres://h/d", .noUser),
            ("postgres://u@h", .noDatabase), ("postgres://u@h/", .noDatabase), ("postgres://u@h/d?sslmode=bogus", .sslMode("bogus")),
            ("postgres://u@h/d?sslmode=VERIFY-FULL", .sslMode("VERIFY-FULL")), ("postgres://u@h/d?sslcert=/c.pem", .option("sslcert=/c.pem")),
            ("postgres://u@h/d?sslmode=require&sslrootcert=/ca.pem", .rootCertWithoutVerification(.require)),
            ("postgres://u@h/d?sslrootcert=/ca.pem", .rootCertWithoutVerification(.prefer)),
        ]
        for (url, problem) in refused {
            #expect(throws: problem, "\(url)") { try PostgresLocation(url: url) }
        }
        // And the URL of the test cluster opens a history.
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        let history = try await PostgresHistory(location: PostgresLocation(
            url: "postgres://\(cluster.user):\(cluster.password)@\(cluster.host):\(cluster.port)/\(database)"))
        #expect(try await history.eventCount == 0)
        await history.close()
    }

    @Test("the same events give the same stored bytes, IDs and sessions as the SQLite history")
    func sameBytesAsSQLite() async throws {
        var factories = [EventFactory(), EventFactory(deviceID: "device-B", requestorID: "NBC")]
        var events: [EntitlementEvent] = []
        for round in 0..<3 {
            events += factories[0].flow()
            events += factories[1].flow().map { event in
                var event = event
                if round == 1 { event.mvpdID = "Dish" }
                return event
            }
        }
        let answers = try await [HistoryBackend.sqlite, .postgres].asyncMap { backend in
            try await withHistory(backend) { history in
                for start in stride(from: 0, to: events.count, by: 10) { try await history.append(Array(events[start..<min(start + 10, events.count)])) }
                return (try await history.rawPage(matching: .all, before: nil, after: 0, limit: 1000).events, try await history.sessions())
            }
        }
        #expect(answers[0].0.ids.count == events.count)
        #expect(answers[0].0 == answers[1].0, "the stored views differ")
        #expect(answers[0].1 == answers[1].1, "the sessions differ")
    }

    @Test("an event stored through one console reaches another console's observer (LISTEN/NOTIFY), after the newest ID it saw",
        .timeLimit(.minutes(2)))
    func observationAcrossConsoles() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        let a = try await cluster.openHistory(database: database)
        let b = try await cluster.openHistory(database: database)
        var factory = EventFactory()
        try await a.append(Array(factory.flow().prefix(3)))
        var newest = b.observeNewestEventID().makeAsyncIterator()
        // First the newest ID as it stands, then each append's, from the other console.
        #expect(await newest.next() == 3)
        try await a.append([factory.make(.apiCall(name: "getAuthorization", arguments: [:]))])
        #expect(await newest.next() == 4)
        var events = b.observeNewEvents(matching: HistoryFilter(kinds: [.error]), after: 4).makeAsyncIterator()
        let error = factory.make(.error(code: "N000", message: "User not authorized"))
        try await a.append([factory.make(.apiCall(name: "x", arguments: [:])), error])
        #expect(await events.next()?.map(\.event) == [error])
        await a.close()
        await b.close()
    }

    @Test("two consoles appending to one database at once: every event stored once, IDs unique and in commit order")
    func twoWritersOneDatabase() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        let consoles = try await [0, 1].asyncMap { _ in
            try await cluster.openHistory(database: database)
        }
        let batches: [[EntitlementEvent]] = (0..<20).map { _ in
            var factory = EventFactory()
            return factory.flow()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, batch) in batches.enumerated() {
                group.addTask { try await consoles[index % 2].append(batch) }
            }
            try await group.waitForAll()
        }
        let stored = try await consoles[1].page(limit: 1000).events
        #expect(stored.count == batches.count * 8)
        #expect(stored.map(\.id) == Array(1...Int64(stored.count)))
        // Each batch's events are one run of IDs: batches took turns, none interleaved.
        for batch in batches {
            let ids = stored.filter { $0.event.sessionID == batch[0].sessionID }.map(\.id)
            #expect(ids == Array(ids[0]..<(ids[0] + Int64(ids.count))))
        }
        #expect(try await consoles[0].eventCount == stored.count)
        for console in consoles { await console.close() }
    }
}

extension Array {
    /// `transform` applied to each element in order, one at a time.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}

/// The Sessions list sorted by every column, on both histories.
@Suite("Sorted session pages")
struct SessionSortPageTests {
    @Test("every column in both orders, paged by token, with and without a search: PostgreSQL's pages are SQLite's")
    func sortedPagesAgree() async throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        var events: [EntitlementEvent] = []
        // Names in mixed case (folded ASCII only), missing values, equal values (ties broken by arrival), outcomes.
        let names: [(String?, String?, String)] = [("REF30", "Dish", "com.example.news.ios"), ("ref30", nil, "com.example.sports.tvos"),
            (nil, "Comcast", "com.example.news.ios"), ("NBC", "dish", "com.other.app"), ("Éclair", "Télé", "com.example.news.ios"),
            ("sports1", "Comcast", "com.example.sports.tvos")]
        for (index, (requestor, mvpd, bundle)) in names.enumerated() {
            var factory = EventFactory(deviceID: "device-\(index % 3)", app: AppIdentity(bundleID: bundle, teamID: "T"), requestorID: requestor,
                start: Date(timeIntervalSince1970: 1_789_999_000 + Double(index % 4) * 100))
            for step in 0...(index % 3) {
                events.append(factory.make(step == 0 ? .apiCall(name: "getAuthentication", arguments: [:])
                    : .callback(callback: .setAuthenticationStatus(status: index % 2, errorCode: nil)), mvpd: mvpd))
            }
        }
        let labels = SessionLabels(apps: ["com.example.news.ios": "News"], users: [:])
        var orders: [[String]] = [[], []]
        for (slot, backend) in [HistoryBackend.sqlite, .postgres].enumerated() {
            try await withHistory(backend) { history in
                try await history.append(events)
                for key in SessionSortKey.allCases {
                    for order in SessionSortOrder.allCases {
                        // "news" finds the three sessions of the News app.
                        for search in ["", "news"] {
                            var ids: [String] = []
                            var cursor: SessionCursor?
                            repeat {
                                let page = try await Self.sessionPage(history, search, SessionSort(key: key, order: order), labels, now, cursor)
                                #expect(page.total == (search.isEmpty ? 6 : 3))
                                ids += page.sessions.map(\.session.id.uuidString)
                                // The cursor goes through its token, as a browser sends it back.
                                cursor = try page.nextCursor.map { try #require(SessionCursor(token: $0.token)) }
                            } while cursor != nil
                            #expect(ids.count == (search.isEmpty ? 6 : 3) && Set(ids).count == ids.count, "\(backend) \(key) \(order)")
                            orders[slot].append("\(key) \(order) \(search): " + ids.joined(separator: ","))
                        }
                    }
                }
            }
        }
        for (sqlite, postgres) in zip(orders[0], orders[1]) { #expect(sqlite == postgres) }
        // The columns do order differently (the comparison is not between lists that all come out alike).
        #expect(Set(orders[0].map { $0.split(separator: ":")[1] }).count >= 8)
    }

    static func sessionPage(_ history: any EventHistory, _ text: String, _ sort: SessionSort, _ labels: SessionLabels, _ now: Date,
        _ cursor: SessionCursor?) async throws -> SessionSortPage
    {
        try await history.sessionPage(matching: text, aliases: [], sort: sort, labels: labels, now: now, after: cursor, limit: 4)
    }
}
