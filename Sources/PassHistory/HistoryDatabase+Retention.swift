import Foundation
import GRDB

/// How much history to keep (``EventHistory/prune(_:now:)``).
public struct HistoryRetention: Sendable, Equatable {
    /// Keep at most this many events (the oldest go first).
    public var maxEvents: Int
    /// Drop events older than this.
    public var maxAge: Duration

    /// Keeps 1,000,000 events and 30 days by default.
    public init(maxEvents: Int = 1_000_000, maxAge: Duration = .seconds(30 * 24 * 3600)) {
        self.maxEvents = maxEvents
        self.maxAge = maxAge
    }

    /// The `timestamp` column value (``EventRecord/timestampColumn(_:)``) below which events are too old at `now`.
    package func cutoff(now: Date) -> Double {
        EventRecord.timestampColumn(now) - Double(maxAge.components.seconds)
    }
}

extension HistoryDatabase {
    /// How much history to keep (the name it had before the PostgreSQL history shared it).
    public typealias Retention = HistoryRetention

    /// Deletes events beyond `retention` (oldest first) and sessions left without events.
    /// - Returns: how many events were deleted.
    @discardableResult
    public func prune(_ retention: Retention, now: Date = Date()) async throws -> Int {
        let cutoff = retention.cutoff(now: now)
        return try await writer.write { db in
            var deleted = 0
            // Too old: found through `event_on_timestamp`.
            deleted += try Self.deleteEvents(db, where: "timestamp < ?", arguments: [cutoff])
            let count = try Self.totalEvents(db)
            if count > retention.maxEvents {
                if let boundary = try Int64.fetchOne(db, sql: "SELECT id FROM event ORDER BY id DESC LIMIT 1 OFFSET ?",
                    arguments: [max(0, retention.maxEvents)])
                {
                    deleted += try Self.deleteEvents(db, where: "id <= ?", arguments: [boundary])
                }
            }
            return deleted
        }
    }
}

extension HistoryDatabase {
    /// Deletes the events meeting `condition` and keeps the sessions' counts true (sessions left empty go).
    /// - Returns: how many events were deleted.
    static func deleteEvents(_ db: Database, where condition: String, arguments: StatementArguments) throws -> Int {
        let perSession = try Row.fetchAll(db, sql: """
            SELECT sessionKey, COUNT(*) FROM event WHERE \(condition) GROUP BY sessionKey
            """, arguments: arguments)
        guard !perSession.isEmpty else { return 0 }
        try db.execute(sql: "DELETE FROM event WHERE \(condition)", arguments: arguments)
        let deleted = db.changesCount
        let update = try db.cachedStatement(sql: "UPDATE session SET eventCount = eventCount - ? WHERE key = ?")
        for row in perSession { try update.execute(arguments: [row[1] as Int, row[0] as Int64]) }
        try db.execute(sql: "DELETE FROM session WHERE eventCount <= 0")
        return deleted
    }
}

extension HistoryDatabase {
    /// Refreshes SQLite's statistics so the planner picks the right index for each filter (for example the
    /// `httpStatus` index for `status:4xx`, a few thousand rows, rather than walking a million rows newest-first).
    /// The console runs it with its retention. Statistics taken when the history was small mislead the planner once it
    /// is large (a console analyzed at 44 events answered pages in 400 ms at a million), and `PRAGMA optimize` does
    /// not notice growth on a connection that only writes: so whenever the number of events has doubled or halved
    /// since the last analysis, it analyzes again, sampling (`analysis_limit`) so that costs milliseconds at any size.
    public func optimize() async throws {
        try await writer.write { db in
            try db.execute(sql: "PRAGMA analysis_limit = 2000")
            let events = try Self.totalEvents(db)
            if let analyzed = try Self.analyzedEventCount(db), events <= 2 * analyzed + 1000, 2 * events >= analyzed {
                try db.execute(sql: "PRAGMA optimize")
            } else {
                try db.execute(sql: "ANALYZE")
            }
        }
    }

    /// The number of events SQLite's statistics were taken at (nil before any analysis).
    func analyzedEventCount() async throws -> Int? {
        try await writer.read(Self.analyzedEventCount)
    }

    static func analyzedEventCount(_ db: Database) throws -> Int? {
        guard try db.tableExists("sqlite_stat1") else { return nil }
        // The largest row count of the event table's indexes: a partial index (HTTP statuses) counts only its rows.
        return try Int.fetchOne(db, sql: "SELECT MAX(CAST(stat AS INTEGER)) FROM sqlite_stat1 WHERE tbl = 'event'")
    }
}
