import AccessEnabler
import Foundation
import HistoryTestSupport
import PassHistory
import Testing

/// The Sessions list sorted by the server over every matching session, not over the page a browser holds (issue #15,
/// item 1: "Sessions list columns … sortable").
@Suite(.serialized)
struct SessionSortAPITests {
    /// What a row sorts by, as the page shows it (the server's rule, restated from the row's own fields).
    static func shownValue(_ row: [String: Any], _ key: SessionSortKey) -> SortValue {
        func text(_ value: Any?) -> SortValue { .text(((value as? String) ?? "").lowercased()) }
        switch key {
        case .lastSeen: return .text(row["lastSeen"] as? String ?? "")
        case .events: return .number(row["eventCount"] as? Int ?? -1)
        case .app:
            let bundleID = row["bundleID"] as? String ?? ""
            return text(row["appName"] as? String ?? bundleID.split(separator: ".").suffix(2).joined(separator: "."))
        case .programmer: return text(row["requestorID"])
        case .mvpd: return text(row["mvpdID"])
        case .user: return text(row["username"] as? String ?? row["userID"] as? String)
        case .outcome: return text(row["outcomeLabel"])
        }
    }

    enum SortValue: Comparable {
        case number(Int)
        case text(String)
    }

    static func page(_ fixture: ConsoleFixture, _ query: String) async throws -> (rows: [[String: Any]], next: String?, total: Int) {
        let answer = await fixture.get("/api/sessions?" + query)
        try #require(answer.status == 200, "\(query): \(answer.text.prefix(300))")
        return (answer.json["sessions"] as? [[String: Any]] ?? [], answer.json["nextCursor"] as? String, answer.json["total"] as? Int ?? -1)
    }

    /// Every page of `query`, following `nextCursor`.
    static func allPages(_ fixture: ConsoleFixture, _ query: String, limit: Int) async throws -> (rows: [[String: Any]], pages: Int) {
        var rows: [[String: Any]] = []
        var cursor: String?
        var pages = 0
        repeat {
            let suffix = cursor.map { "&cursor=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? ""
            let page = try await page(fixture, query + "&limit=\(limit)" + suffix)
            rows += page.rows
            cursor = page.next
            pages += 1
        } while cursor != nil && pages < 100
        return (rows, pages)
    }

    @Test(arguments: HistoryBackend.allCases) func theFirstPageSortedByEventsStartsWithTheBusiestSessionOfAllNotOfTheNewest200(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given 260 sessions, the busiest of them the oldest (not among the 200 most recently active)
            let busiest = try await GeneratedSessions.append(260, to: fixture.console.history, now: fixture.clock.now())
            let newest = try await Self.page(fixture, "")
            #expect(newest.rows.count == 200)
            #expect(newest.total == 260)
            #expect(!newest.rows.contains { $0["id"] as? String == busiest.uuidString })
            // When the list is sorted by events, most first
            let byEvents = try await Self.page(fixture, "sort=events&order=desc")
            // Then the first row is the busiest session of the whole history
            #expect(byEvents.rows.first?["id"] as? String == busiest.uuidString)
            #expect(byEvents.rows.first?["eventCount"] as? Int == 150)
            #expect(byEvents.rows.count == 200)
            #expect(byEvents.next != nil)
            // And fewest first it is the last of all, on the second page
            let fewestFirst = try await Self.allPages(fixture, "sort=events&order=asc", limit: 200)
            #expect(fewestFirst.pages == 2)
            #expect(fewestFirst.rows.last?["id"] as? String == busiest.uuidString)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func everyColumnSortsEveryMatchingSessionBothWaysAndPagesNeitherRepeatNorSkip(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given carol signed in with Dish in News (a username the backend knows), and 230 generated sessions
            try await fixture.signIn(mvpd: "Dish", user: "carol", password: "carol123")
            try await fixture.waitUntilRecorded(atLeast: 10)
            try await GeneratedSessions.append(230, to: fixture.console.history, now: fixture.clock.now())
            let all = try await Self.page(fixture, "limit=1000")
            let ids = Set(all.rows.compactMap { $0["id"] as? String })
            #expect(ids.count == all.total)
            #expect(all.total > 230)
            #expect(all.rows.contains { $0["username"] as? String == "carol" })
            for key in SessionSortKey.allCases {
                for order in SessionSortOrder.allCases {
                    // When every page of the list sorted by the column is read, 70 rows at a time
                    let (rows, pages) = try await Self.allPages(fixture, "sort=\(key.rawValue)&order=\(order.rawValue)", limit: 70)
                    // Then every session appears exactly once
                    let seen = rows.compactMap { $0["id"] as? String }
                    #expect(seen.count == ids.count && Set(seen) == ids, "\(key) \(order): \(seen.count) rows over \(pages) pages")
                    // And the rows run in the column's order as the page shows it, across the page boundaries
                    let values = rows.map { Self.shownValue($0, key) }
                    let inOrder = zip(values, values.dropFirst()).allSatisfy { order == .asc ? $0 <= $1 : $0 >= $1 }
                    #expect(inOrder, "\(key) \(order)")
                    // And the column has more than one value, so the order was not trivially kept
                    #expect(Set(values.map { "\($0)" }).count > 2, "\(key)")
                }
            }
            // The column's own order applies when none is named: names A→Z, most events first
            #expect(try await Self.page(fixture, "sort=app").rows.first.map { Self.shownValue($0, .app) } == .text("kids tv"))
            let busiestFirst = try await Self.page(fixture, "sort=events").rows.prefix(2).map { $0["eventCount"] as? Int ?? 0 }
            #expect(busiestFirst.count == 2 && busiestFirst[0] >= busiestFirst[1])
            // The search applies before the sort: only the matching sessions, all of them, sorted
            let dish = try await Self.allPages(fixture, "q=dish&sort=user&order=desc", limit: 25)
            #expect(!dish.rows.isEmpty && dish.rows.allSatisfy { ($0["mvpdID"] as? String)?.lowercased().hasPrefix("dish") == true })
            let dishUsers = dish.rows.map { Self.shownValue($0, .user) }
            #expect(zip(dishUsers, dishUsers.dropFirst()).allSatisfy { $0 >= $1 })
            #expect(dish.rows.contains { !($0["matches"] as? [[String: Any]] ?? []).isEmpty })
        }
    }

    @Test(arguments: HistoryBackend.allCases) func anUnknownSortOrderOrCursorIsRefusedNamingWhatIsAllowed(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await GeneratedSessions.append(30, to: fixture.console.history, now: fixture.clock.now())
            // An unknown column names every column there is
            let bad = await fixture.get("/api/sessions?sort=colour")
            #expect(bad.status == 400)
            #expect(bad.json["error"] as? String == "invalid_parameter")
            let message = bad.json["message"] as? String ?? ""
            for key in SessionSortKey.allCases { #expect(message.contains(key.rawValue), "\(message)") }
            #expect(message.contains("colour"))
            // An unknown direction, a damaged cursor, and a cursor of another sort are refused too
            #expect(await fixture.get("/api/sessions?sort=events&order=up").status == 400)
            #expect(await fixture.get("/api/sessions?cursor=not-a-cursor").status == 400)
            let first = try await Self.page(fixture, "sort=events&order=desc&limit=10")
            let cursor = try #require(first.next)
            let other = await fixture.get("/api/sessions?sort=app&order=desc&limit=10&cursor=\(cursor)")
            #expect(other.status == 400)
            #expect((other.json["message"] as? String)?.contains("events desc") == true)
            #expect(await fixture.get("/api/sessions?sort=events&order=desc&limit=10&cursor=\(cursor)").status == 200)
            // And a page size outside 1…1000
            #expect(await fixture.get("/api/sessions?limit=0").status == 400)
            #expect(await fixture.get("/api/sessions?limit=5000").status == 400)
        }
    }

    /// 2,000 sessions (the size issue #15 was tried at): each column's first page is the true top 200 of all of them.
    /// Prints the time of one sorted page per column and order (not asserted: the machine is shared).
    @Test(arguments: HistoryBackend.allCases) func twoThousandSessionsSortByEveryColumnWithTheMeasuredTimeOfOnePage(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            let busiest = try await GeneratedSessions.append(2000, to: fixture.console.history, now: fixture.clock.now())
            let all = try await Self.page(fixture, "limit=1000")
            #expect(all.total == 2000)
            var report: [String] = []
            for key in SessionSortKey.allCases {
                for order in SessionSortOrder.allCases {
                    let started = ContinuousClock.now
                    let page = try await Self.page(fixture, "sort=\(key.rawValue)&order=\(order.rawValue)")
                    let elapsed = ContinuousClock.now - started
                    let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                    report.append("\(key.rawValue) \(order.rawValue): " + String(format: "%.0f ms", ms))
                    #expect(page.rows.count == 200)
                    let values = page.rows.map { Self.shownValue($0, key) }
                    #expect(zip(values, values.dropFirst()).allSatisfy { order == .asc ? $0 <= $1 : $0 >= $1 }, "\(key) \(order)")
                    if key == .events && order == .desc { #expect(page.rows.first?["id"] as? String == busiest.uuidString) }
                }
            }
            print("Sorted first page of 200 out of 2,000 sessions (GET /api/sessions, in process): " + report.joined(separator: ", "))
            // The history's part alone (the SQL sort and page), without the console's names, storage and encoding
            var sql: [String] = []
            for key in SessionSortKey.allCases {
                let started = ContinuousClock.now
                let page = try await fixture.console.history.sessionPage(matching: "", aliases: [], sort: SessionSort(key: key),
                    labels: SessionLabels(), now: fixture.clock.now(), after: nil, limit: 200)
                let elapsed = ContinuousClock.now - started
                #expect(page.sessions.count == 200 && page.total == 2000)
                sql.append("\(key.rawValue): " + String(format: "%.1f ms",
                    Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15))
            }
            print("\(history).sessionPage, 200 of 2,000 sessions: " + sql.joined(separator: ", "))
        }
    }
}
