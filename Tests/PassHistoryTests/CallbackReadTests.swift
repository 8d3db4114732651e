import AccessEnabler
import Foundation
import GRDB
import Testing
@testable import PassHistory

/// The reads a server answers through a completion callback (`GET /api/events`): the same pages as the async reads,
/// on connections of their own where a slow read holds up no other; and the unfiltered page's plan.
@Suite("Callback reads")
struct CallbackReadTests {
    @Test func aPageHandedToACallbackIsThePageTheAsyncReadReturns() async throws {
        try await withHistory { history in
            let events = try await HistoryQueryTests.seed(history)
            let sessions = Array(Set(events.map(\.sessionID))).sorted { $0.uuidString < $1.uuidString }
            for filter in HistoryQueryTests.filters(sessions: sessions) {
                for (before, after) in [(nil, nil), (Int64(30), nil), (nil, Int64(5))] as [(Int64?, Int64?)] {
                    let awaited = try await history.rawPageWithCounts(matching: filter, before: before, after: after, limit: 7)
                    let called = try await withCheckedThrowingContinuation { continuation in
                        history.rawPageWithCounts(matching: filter, before: before, after: after, limit: 7) { continuation.resume(with: $0) }
                    }
                    #expect(called.events == awaited.events && called.nextCursor == awaited.nextCursor)
                    #expect(called.total == awaited.total && called.matching == awaited.matching)
                }
                let window = try await withCheckedThrowingContinuation { continuation in
                    history.rawWindowPageWithCounts(matching: filter, before: nil, seconds: 60) { continuation.resume(with: $0) }
                }
                let awaitedWindow = try await history.rawWindowPageWithCounts(matching: filter, before: nil, seconds: 60)
                #expect(window.events == awaitedWindow.events && window.window == awaitedWindow.window)
            }
        }
    }

    @Test func aSlowCallbackReadHoldsUpNoOtherRead() async throws {
        try await withHistory { history in
            _ = try await HistoryQueryTests.seed(history)
            let readers = try #require(history.callbackReaders)
            // The slow read waits until the fast one has been answered; had the fast one been queued behind it, the
            // slow one would give up waiting first (and say so).
            let release = DispatchSemaphore(value: 0)
            async let slow: DispatchTimeoutResult = withCheckedThrowingContinuation { continuation in
                readers.read({ db in
                    _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event")
                    return release.wait(timeout: .now() + 30)
                }, completion: { continuation.resume(with: $0) })
            }
            while readers.waitingCounts.reduce(0, +) == 0 { try await Task.sleep(for: .milliseconds(5)) }
            let count = try await withCheckedThrowingContinuation { continuation in
                readers.read({ db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event") ?? 0 }, completion: { continuation.resume(with: $0) })
            }
            release.signal()
            #expect(count == (try await history.eventCount))
            #expect(try await slow == .success)
            #expect(readers.waitingCounts == [0, 0, 0, 0])
        }
    }

    @Test("without a filter a page walks the events by ID, even where a small history's statistics favour an index and a sort")
    func theUnfilteredPageNeverSorts() async throws {
        try await withHistory { history in
            _ = try await HistoryQueryTests.seed(history)
            try await history.writer.write { db in
                // The statistics `PRAGMA optimize` left in a console's history of 48 events from two sign-ins: with
                // them SQLite read the whole table through event_on_timestamp and sorted it for every page.
                try db.execute(sql: "ANALYZE")
                try db.execute(sql: "DELETE FROM sqlite_stat1 WHERE tbl = 'event'")
                for (index, stat) in [("event_on_timestamp", "48 4"), ("event_on_session", "48 24"), ("event_on_mvpd", "48 16"),
                    ("event_on_requestor", "48 24 7"), ("event_on_kind", "48 8"), ("event_on_status", "4 4"), ("event_on_statusClass", "4 4")]
                {
                    try db.execute(sql: "INSERT INTO sqlite_stat1 VALUES ('event', ?, ?)", arguments: [index, stat])
                }
                try db.execute(sql: "ANALYZE sqlite_schema")
                for (lower, upper, newestFirst) in [(Int64(0), Int64.max, true), (0, 30, true), (5, .max, false)] {
                    let (sql, arguments) = HistoryFilter.all.query(select: "id, payload", above: lower, below: upper,
                        newestFirst: newestFirst, limit: 51)
                    let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
                    #expect(!plan.contains { $0.contains("TEMP B-TREE") || $0.contains("INDEX") }, "\(plan)")
                }
            }
        }
    }
}
