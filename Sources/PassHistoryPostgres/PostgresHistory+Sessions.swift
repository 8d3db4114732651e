import PassEvents
import Foundation
import PassHistory
import PostgresNIO

extension PostgresHistory {
    /// The `session` columns a ``HistorySession`` is read from, in ``session(from:)``'s order.
    static let sessionColumns = """
        id, device_id, bundle_id, team_id, platform, requestor_id, first_seen, last_seen, event_count, mvpd_id, user_id,
        tracking_hash, outcome, waiting_since
        """

    /// Every session, the most recently active first (then by ID).
    public func sessions() async throws -> [HistorySession] {
        let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT \(Self.sessionColumns) FROM session ORDER BY last_seen DESC, id"),
            logger: logger)
        var sessions: [HistorySession] = []
        for row in rows { sessions.append(try Self.session(from: row)) }
        return sessions
    }

    /// The bundle IDs the sessions belong to.
    public func appBundleIDs(limit: Int) async throws -> [String] {
        var query = PostgresQueryBuilder()
        query.sql = "SELECT DISTINCT bundle_id FROM session LIMIT \(query.bind(max(0, limit)))"
        return try await client.query(query.query, logger: logger).collectColumn(String.self)
    }

    /// The session with this ID, if stored.
    public func session(_ id: UUID) async throws -> HistorySession? {
        var query = PostgresQueryBuilder()
        query.sql = "SELECT \(Self.sessionColumns) FROM session WHERE id = \(query.bind(id))"
        for row in try await client.query(query.query, logger: logger) { return try Self.session(from: row) }
        return nil
    }

    /// How many sessions the history holds.
    public var sessionCount: Int {
        get async throws { try await client.query("SELECT count(*) FROM session", logger: logger).collectColumn(Int.self).first ?? 0 }
    }

    /// A session from its row (dates are seconds since 1970, as in the SQLite history's `session` table).
    static func session(from row: PostgresRow) throws -> HistorySession {
        let (id, deviceID, bundleID, teamID, platformName, requestorID, firstSeen, lastSeen, eventCount, mvpdID, userID, trackingHash,
            outcome, waiting) = try row.decode((UUID, String, String, String, String, String?, Double, Double, Int, String?, String?,
                String?, String, Double?).self)
        // The `platform` column holds the client kind (an SDK session's is its platform's own value).
        let client = ClientKind(rawValue: platformName)
        return HistorySession(
            id: id, deviceID: deviceID, bundleID: bundleID, teamID: teamID, platform: client.sdkPlatform ?? .iOS,
            requestorID: requestorID, firstSeen: Date(timeIntervalSince1970: firstSeen), lastSeen: Date(timeIntervalSince1970: lastSeen), eventCount: eventCount,
            mvpdID: mvpdID, userID: userID, trackingHash: trackingHash, settledOutcome: SessionOutcome(rawValue: outcome),
            waitingSince: waiting.map(Date.init(timeIntervalSince1970:)), client: client)
    }

    /// Deletes a session and all its events.
    /// - Returns: whether the session existed.
    @discardableResult
    public func deleteSession(_ id: UUID) async throws -> Bool {
        try await write { connection, _ in
            guard let key = try await connection.query("SELECT key FROM session WHERE id = \(id)", logger: self.logger)
                .collectColumn(Int64.self).first
            else { return false }
            var query = PostgresQueryBuilder()
            _ = try await Self.deleteEvents(connection, where: "session_key = \(query.bind(key))", query: query, logger: self.logger)
            try await connection.query("DELETE FROM session WHERE key = \(key)", logger: self.logger)
            return true
        }
    }

    /// Deletes events beyond `retention` (oldest first) and sessions left without events.
    /// - Returns: how many events were deleted.
    @discardableResult
    public func prune(_ retention: HistoryRetention, now: Date = Date()) async throws -> Int {
        let cutoff = retention.cutoff(now: now)
        return try await write { connection, _ in
            var query = PostgresQueryBuilder()
            // Too old: found through `event_on_timestamp`.
            var deleted = try await Self.deleteEvents(connection, where: "timestamp < \(query.bind(cutoff))", query: query, logger: self.logger)
            let count = try await connection.query("SELECT COALESCE(SUM(event_count), 0)::bigint FROM session", logger: self.logger)
                .collectColumn(Int.self).first ?? 0
            if count > retention.maxEvents,
                let boundary = try await connection.query(
                    "SELECT id FROM event ORDER BY id DESC LIMIT 1 OFFSET \(max(0, retention.maxEvents))", logger: self.logger
                ).collectColumn(Int64.self).first
            {
                query = PostgresQueryBuilder()
                deleted += try await Self.deleteEvents(connection, where: "id <= \(query.bind(boundary))", query: query, logger: self.logger)
            }
            return deleted
        }
    }

    /// Deletes the events meeting `condition` (its values bound in `query`) and keeps the sessions' counts true
    /// (sessions left empty go, their search entries with them).
    /// - Returns: how many events were deleted.
    static func deleteEvents(_ connection: PostgresConnection, where condition: String, query: PostgresQueryBuilder, logger: Logger)
        async throws -> Int
    {
        var query = query
        query.sql = """
            WITH gone AS (DELETE FROM event WHERE \(condition) RETURNING session_key),
                per_session AS (SELECT session_key, count(*) AS n FROM gone GROUP BY session_key),
                counted AS (UPDATE session SET event_count = event_count - per_session.n FROM per_session
                    WHERE session.key = per_session.session_key RETURNING session.key)
            SELECT COALESCE(SUM(n), 0)::bigint FROM per_session
            """
        let deleted = try await connection.query(query.query, logger: logger).collectColumn(Int.self).first ?? 0
        if deleted > 0 { try await connection.query("DELETE FROM session WHERE event_count <= 0", logger: logger) }
        return deleted
    }
}

/// A PostgreSQL history's failure of its own (the database's errors are PostgresNIO's).
public enum PostgresHistoryError: Error, CustomStringConvertible {
    /// A stored row does not read as what it should hold.
    case unreadable(String)

    public var description: String {
        switch self {
        case .unreadable(let what): "unreadable history row: \(what)"
        }
    }
}
