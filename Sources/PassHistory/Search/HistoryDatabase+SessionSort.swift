import Foundation
import GRDB

/// A column of the Sessions list the history can sort every session by (not just the page a browser holds).
public enum SessionSortKey: String, Codable, Sendable, CaseIterable {
    /// The latest event's time.
    case lastSeen
    /// The app's readable name (``SessionLabels/app(_:)``).
    case app
    /// The latest Programmer.
    case programmer
    /// The latest MVPD.
    case mvpd
    /// The user as a list shows it: the username when known, else the user ID (``SessionLabels/users``).
    case user
    /// The outcome's words as of now (``SessionOutcome/label``, waiting turned into stuck by ``SessionOutcome/Tracker``).
    case outcome
    /// How many events the session has.
    case events

    /// The order a click on the column starts with: newest and busiest first, names A→Z.
    public var defaultOrder: SessionSortOrder { self == .lastSeen || self == .events ? .desc : .asc }
}

/// Ascending or descending.
public enum SessionSortOrder: String, Codable, Sendable, CaseIterable {
    case asc, desc
}

/// How a list of sessions is ordered: by one column, ties broken by the session's arrival (`session.key`) in the same
/// direction, so every session has one place and pages never overlap.
public struct SessionSort: Sendable, Equatable {
    public var key: SessionSortKey
    public var order: SessionSortOrder

    /// The Sessions page's default: the most recently active first.
    public static let `default` = SessionSort(key: .lastSeen, order: .desc)

    public init(key: SessionSortKey, order: SessionSortOrder? = nil) {
        self.key = key
        self.order = order ?? key.defaultOrder
    }
}

/// The names people know a session's app and user by, which the history does not hold: the console knows its apps'
/// names, the backend the usernames its users signed in as.
public struct SessionLabels: Sendable, Equatable {
    /// App names by bundle ID.
    public var apps: [String: String]
    /// The user label by user ID, and by lowercased tracking hash (for a session that only reported the hash).
    public var users: [String: String]

    public init(apps: [String: String] = [:], users: [String: String] = [:]) {
        self.apps = apps
        self.users = users
    }

    /// The app's name when known, else the last two parts of its bundle ID (`com.example.news.sports` → `news.sports`):
    /// the rule the console's pages show apps by (`Public/lib/apps.js`, `appLabel`).
    public func app(_ bundleID: String) -> String {
        if let name = apps[bundleID] { return name }
        let tail = bundleID.split(separator: ".").suffix(2).joined(separator: ".")
        return tail.isEmpty ? bundleID : tail
    }
}

/// Where the next page of a sorted list starts: after the last row's sort value and key. Sent to clients as an
/// opaque token (``token``); a token names its sort, so it cannot continue a list in another order.
public struct SessionCursor: Sendable, Equatable {
    public var sort: SessionSort
    /// The last row's sort value: seconds since 1970 (last seen), a count (events) or folded text (the others).
    var value: DatabaseValue
    /// The last row's `session.key`.
    package var key: Int64

    private struct Wire: Codable {
        var sort: SessionSortKey
        var order: SessionSortOrder
        var number: Double?
        var count: Int64?
        var text: String?
        var key: Int64
    }

    /// The cursor as a URL-safe string.
    public var token: String {
        var wire = Wire(sort: sort.key, order: sort.order, key: key)
        switch value.storage {
        case .double(let number): wire.number = number
        case .int64(let count): wire.count = count
        case .string(let text): wire.text = text
        default: break
        }
        let data = (try? JSONEncoder().encode(wire)) ?? Data()
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Reads a token ``token`` made; nil when it is not one (damaged, or its value not of its sort's kind).
    public init?(token: String) {
        guard token.utf8.count <= 4096 else { return nil }
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let wire = try? JSONDecoder().decode(Wire.self, from: data) else { return nil }
        let value: DatabaseValue?
        switch wire.sort {
        case .lastSeen: value = wire.number.flatMap { $0.isFinite ? $0.databaseValue : nil }
        case .events: value = wire.count?.databaseValue
        case .app, .programmer, .mvpd, .user, .outcome: value = wire.text?.databaseValue
        }
        guard let value else { return nil }
        self.init(sort: SessionSort(key: wire.sort, order: wire.order), value: value, key: wire.key)
    }

    init(sort: SessionSort, value: DatabaseValue, key: Int64) {
        self.sort = sort
        self.value = value
        self.key = key
    }

    /// A sort value of any history: a time (seconds since 1970), a count or folded text.
    package enum SortValue: Sendable, Equatable {
        case number(Double)
        case count(Int64)
        case text(String)
    }

    /// A cursor after the row with this sort value and `session.key`.
    package init(sort: SessionSort, sortValue: SortValue, key: Int64) {
        let value: DatabaseValue = switch sortValue {
        case .number(let number): number.databaseValue
        case .count(let count): count.databaseValue
        case .text(let text): text.databaseValue
        }
        self.init(sort: sort, value: value, key: key)
    }

    /// The last row's sort value (`nil`: none of the three kinds, which a cursor never holds).
    package var sortValue: SortValue? {
        switch value.storage {
        case .double(let number): .number(number)
        case .int64(let count): .count(count)
        case .string(let text): .text(text)
        default: nil
        }
    }
}

/// One page of a sorted session list.
public struct SessionSortPage: Sendable {
    /// The page's sessions in order, each with what the search matched.
    public var sessions: [SessionMatch]
    /// Where the next page starts; nil on the last page.
    public var nextCursor: SessionCursor?
    /// How many sessions match the search (all pages).
    public var total: Int

    /// A page of sessions, where the next starts, and how many match in all.
    public init(sessions: [SessionMatch], nextCursor: SessionCursor?, total: Int) {
        self.sessions = sessions
        self.nextCursor = nextCursor
        self.total = total
    }
}

extension HistoryDatabase {
    /// One page of the sessions `text` finds (all when empty; the words as ``sessions(matching:aliases:limit:)`` reads
    /// them), sorted over every matching session in SQL, starting after `cursor`, at most `limit`.
    public func sessionPage(
        matching text: String, aliases: [SessionAlias] = [], sort: SessionSort = .default, labels: SessionLabels = SessionLabels(),
        now: Date, after cursor: SessionCursor? = nil, limit: Int = 200
    ) async throws -> SessionSortPage {
        let words = SessionSearch.words(text)
        let limit = max(1, limit)
        return try await writer.read { db in
            var found: [Int64: [FieldMatch]]?
            if !words.isEmpty {
                found = try Self.sessionsMatching(db, words: words, aliases: aliases)
                if found?.isEmpty == true { return SessionSortPage(sessions: [], nextCursor: nil, total: 0) }
            }
            var query = try Self.sortedSessionsSQL(db, sort: sort, labels: labels, now: now)
            var conditions: [String] = []
            if let found { conditions.append("key IN (\(found.keys.map(String.init).joined(separator: ",")))") }
            if let cursor {
                conditions.append("(sortValue, key) \(sort.order == .asc ? ">" : "<") (?, ?)")
                query.arguments += [cursor.value, cursor.key]
            }
            let direction = sort.order == .asc ? "ASC" : "DESC"
            query.sql += (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
                + " ORDER BY sortValue \(direction), key \(direction) LIMIT ?"
            query.arguments += [limit + 1]
            let rows = try Row.fetchAll(db, sql: query.sql, arguments: query.arguments)
            let sessions = try rows.prefix(limit).map { row in
                SessionMatch(session: try HistorySession(row: row), matches: (found?[row["key"] as Int64] ?? []).sorted { $0.field < $1.field })
            }
            let next = rows.count > limit ? rows[limit - 1] : nil
            let total = try found.map(\.count) ?? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM session") ?? 0
            return SessionSortPage(sessions: sessions,
                nextCursor: next.map { SessionCursor(sort: sort, value: $0["sortValue"], key: $0["key"]) }, total: total)
        }
    }

    /// `SELECT * FROM (every session with its `sortValue`)`, to which a caller adds its conditions and order. The value
    /// is never NULL: a missing name sorts as empty text (first A→Z, last Z→A).
    static func sortedSessionsSQL(_ db: Database, sort: SessionSort, labels: SessionLabels, now: Date) throws
        -> (sql: String, arguments: StatementArguments)
    {
        var arguments = StatementArguments()
        var with = ""
        var joins = ""
        let value: String
        /// A common table of (value, label) pairs, or an empty one.
        func table(_ name: String, _ pairs: [(String, String)]) -> String {
            guard !pairs.isEmpty else { return "\(name)(value, label) AS (SELECT NULL, NULL WHERE 0)" }
            arguments += StatementArguments(pairs.flatMap { [$0.0, $0.1] })
            return "\(name)(value, label) AS (VALUES " + Array(repeating: "(?, ?)", count: pairs.count).joined(separator: ", ") + ")"
        }
        switch sort.key {
        case .lastSeen: value = "session.lastSeen"
        case .events: value = "session.eventCount"
        case .programmer: value = "lower(COALESCE(session.requestorID, ''))"
        case .mvpd: value = "lower(COALESCE(session.mvpdID, ''))"
        case .app:
            // The few apps of the history, each labelled the way the pages show it.
            let bundleIDs = try String.fetchAll(db, sql: "SELECT DISTINCT bundleID FROM session")
            with = "WITH " + table("app_label", bundleIDs.map { ($0, labels.app($0)) }) + " "
            joins = " LEFT JOIN app_label ON app_label.value = session.bundleID"
            value = "lower(COALESCE(app_label.label, session.bundleID))"
        case .user:
            with = "WITH " + table("user_label", labels.users.map { ($0.key, $0.value) }) + " "
            joins = " LEFT JOIN user_label AS by_id ON by_id.value = session.userID"
                + " LEFT JOIN user_label AS by_hash ON by_hash.value = lower(session.trackingHash)"
            value = "lower(COALESCE(by_id.label, session.userID, by_hash.label, ''))"
        case .outcome:
            // SessionOutcome.Tracker.outcome(at:) in SQL: a waiting session is in progress, stuck after stuckAfter.
            let settled = SessionOutcome.allCases.map { _ in "WHEN ? THEN ?" }.joined(separator: " ")
            arguments += StatementArguments(SessionOutcome.allCases.flatMap { [$0.rawValue, $0.label] })
            arguments += [now.timeIntervalSince1970, SessionOutcome.Tracker.stuckAfter, SessionOutcome.stuck.label,
                SessionOutcome.inProgress.label, SessionOutcome.started.label]
            value = "CASE WHEN session.waitingSince IS NULL THEN (CASE session.outcome \(settled) ELSE NULL END)"
                + " WHEN ? - session.waitingSince > ? THEN ? ELSE ? END"
            // A value from no known case (an older row) reads as started, as HistorySession does.
            return (with + "SELECT * FROM (SELECT session.*, COALESCE(\(value), ?) AS sortValue FROM session)", arguments)
        }
        return (with + "SELECT * FROM (SELECT session.*, \(value) AS sortValue FROM session\(joins))", arguments)
    }
}
