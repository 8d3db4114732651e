import Foundation
import GRDB

extension HistoryDatabase {
    /// How much history to keep.
    public struct Retention: Sendable, Equatable {
        /// Keep at most this many events (the oldest go first).
        public var maxEvents: Int
        /// Drop events older than this.
        public var maxAge: Duration

        /// Keeps 1,000,000 events and 30 days by default.
        public init(maxEvents: Int = 1_000_000, maxAge: Duration = .seconds(30 * 24 * 3600)) {
            self.maxEvents = maxEvents
            self.maxAge = maxAge
        }
    }

    /// Deletes events beyond `retention` (oldest first) and sessions left without events.
    /// - Returns: how many events were deleted.
    @discardableResult
    public func prune(_ retention: Retention, now: Date = Date()) throws -> Int {
        let cutoff = now.timeIntervalSince1970 - Double(retention.maxAge.components.seconds)
        return try writer.write { db in
            try db.execute(sql: "DELETE FROM event WHERE timestamp < ?", arguments: [cutoff])
            var deleted = db.changesCount
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event") ?? 0
            if count > retention.maxEvents {
                try db.execute(
                    sql: "DELETE FROM event WHERE id <= (SELECT id FROM event ORDER BY id DESC LIMIT 1 OFFSET ?)",
                    arguments: [max(0, retention.maxEvents)])
                deleted += db.changesCount
            }
            guard deleted > 0 else { return 0 }
            try db.execute(sql: """
                UPDATE session SET eventCount = (SELECT COUNT(*) FROM event WHERE event.sessionKey = session.key)
                """)
            try db.execute(sql: "DELETE FROM session WHERE eventCount = 0")
            return deleted
        }
    }
}

extension HistoryDatabase {
    /// Refreshes SQLite's statistics so the planner picks the right index for each filter (for example the
    /// `httpStatus` index for `status:4xx`, a few thousand rows, rather than walking a million rows newest-first).
    /// The console runs it with its retention. Statistics taken when the history was small mislead the planner once it
    /// is large (a console analyzed at 44 events answered pages in 400 ms at a million), and `PRAGMA optimize` does
    /// not notice growth on a connection that only writes: so whenever the number of events has doubled or halved
    /// since the last analysis, it analyzes again, sampling (`analysis_limit`) so that costs milliseconds at any size.
    public func optimize() throws {
        try writer.write { db in
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
    func analyzedEventCount() throws -> Int? {
        try writer.read(Self.analyzedEventCount)
    }

    static func analyzedEventCount(_ db: Database) throws -> Int? {
        guard try db.tableExists("sqlite_stat1") else { return nil }
        return try Int.fetchOne(db, sql: "SELECT CAST(stat AS INTEGER) FROM sqlite_stat1 WHERE tbl = 'event' LIMIT 1")
    }
}
