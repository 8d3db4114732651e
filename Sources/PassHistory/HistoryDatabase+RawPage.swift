import PassEvents
import Foundation
import GRDB
import GRDBSQLite

/// A stored event as its row holds it, for the live feed (``EventHistory/newRawEvents(matching:after:upTo:limit:)``):
/// its ID, its view (``EventView``: the bytes the API and the live feed send, passed through without decoding) and the
/// facts a filter decides on.
public struct RawEventRow: Sendable, Equatable {
    /// The event's ID in the history (its place in the order of arrival).
    public var id: Int64
    /// The event as the API sends it (``EventView``).
    public var view: String
    /// What the clients' filters decide on.
    public var facts: EventFacts

    /// A row, its view and its facts.
    public init(id: Int64, view: String, facts: EventFacts) {
        self.id = id
        self.view = view
        self.facts = facts
    }
}

/// The events of a page as the API sends them: their stored views joined with commas (the inside of a JSON array),
/// read straight from SQLite into one buffer, and their IDs.
public struct RawEventList: Sendable, Equatable {
    /// The events' IDs, in the page's order.
    public var ids: [Int64] = []
    /// `view,view,…` (UTF-8).
    public var json: [UInt8] = []

    /// An empty list.
    public init() {}
}

/// One page for a list: the events and the counts a "filter on: N hidden" cue needs, read in one transaction.
public struct RawPage: Sendable {
    /// The page's events, newest first.
    public var events: RawEventList
    /// Where the next (older) page starts; nil when this is the last.
    public var nextCursor: Int64?
    /// Every stored event.
    public var total: Int
    /// Events matching the filter (at most `countLimit`).
    public var matching: Int
    /// True when counting stopped at `countLimit`.
    public var matchingCapped: Bool
    /// For a page read by time window: the span it covers, oldest first.
    public var window: ClosedRange<Date>? = nil

    /// A page and its counts.
    public init(events: RawEventList, nextCursor: Int64?, total: Int, matching: Int, matchingCapped: Bool, window: ClosedRange<Date>? = nil) {
        self.events = events
        self.nextCursor = nextCursor
        self.total = total
        self.matching = matching
        self.matchingCapped = matchingCapped
        self.window = window
    }
}

extension HistoryDatabase {
    /// A page and its counts in one read transaction (one pool hop instead of three per request).
    public func rawPageWithCounts(
        matching filter: HistoryFilter, before: Int64? = nil, after: Int64? = nil, limit: Int = 100, countLimit: Int = 100_000
    ) async throws -> RawPage {
        try await writer.read { db in
            try Self.rawPageWithCounts(db, matching: filter, before: before, after: after, limit: limit, countLimit: countLimit)
        }
    }

    /// As ``rawPageWithCounts(matching:before:after:limit:countLimit:)``, handing the page to `completion` instead of
    /// awaiting it: the read runs on a reader queue of the history's, which calls `completion` (a server answers from
    /// there without a task; the caller's thread never waits for the database).
    public func rawPageWithCounts(
        matching filter: HistoryFilter, before: Int64? = nil, after: Int64? = nil, limit: Int = 100, countLimit: Int = 100_000,
        completion: @escaping @Sendable (Result<RawPage, any Error>) -> Void
    ) {
        read(completion) { db in
            try Self.rawPageWithCounts(db, matching: filter, before: before, after: after, limit: limit, countLimit: countLimit)
        }
    }

    static func rawPageWithCounts(
        _ db: Database, matching filter: HistoryFilter, before: Int64?, after: Int64?, limit: Int, countLimit: Int
    ) throws -> RawPage {
        let (events, next) = try rawPage(db, matching: filter, before: before, after: after, limit: limit)
        let total = try totalEvents(db)
        if filter.isEmpty {
            return RawPage(events: events, nextCursor: next, total: total, matching: total, matchingCapped: false)
        }
        // Counting stops past `countLimit`: a broad filter over a million events would walk them all.
        let found = try filter.count(db, limit: countLimit + 1)
        return RawPage(events: events, nextCursor: next, total: total, matching: min(found, countLimit),
            matchingCapped: found > countLimit)
    }

    /// The page of the events matching `filter` before `before` (newest first) that lie within `seconds` of the newest
    /// of them, with its counts: what "Load older" adds. When no event is that close, the window starts at the next
    /// older event, so a click never comes back empty while older events exist. At most `limit` events: past it,
    /// `nextCursor` continues within the same window.
    ///
    /// The page is a contiguous run of the matching events in ID order (events can arrive out of time order): it stops
    /// above the newest matching event older than the window, so the next page misses none.
    public func rawWindowPageWithCounts(
        matching filter: HistoryFilter, before: Int64?, seconds: TimeInterval, limit: Int = 2000, countLimit: Int = 100_000
    ) async throws -> RawPage {
        try await writer.read { db in
            try Self.rawWindowPageWithCounts(db, matching: filter, before: before, seconds: seconds, limit: limit, countLimit: countLimit)
        }
    }

    /// As ``rawWindowPageWithCounts(matching:before:seconds:limit:countLimit:)``, handing the page to `completion`
    /// (see ``rawPageWithCounts(matching:before:after:limit:countLimit:completion:)``).
    public func rawWindowPageWithCounts(
        matching filter: HistoryFilter, before: Int64?, seconds: TimeInterval, limit: Int = 2000, countLimit: Int = 100_000,
        completion: @escaping @Sendable (Result<RawPage, any Error>) -> Void
    ) {
        read(completion) { db in
            try Self.rawWindowPageWithCounts(db, matching: filter, before: before, seconds: seconds, limit: limit, countLimit: countLimit)
        }
    }

    static func rawWindowPageWithCounts(
        _ db: Database, matching filter: HistoryFilter, before: Int64?, seconds: TimeInterval, limit: Int, countLimit: Int
    ) throws -> RawPage {
        let total = try totalEvents(db)
        let found = filter.isEmpty ? total : try filter.count(db, limit: countLimit + 1)
        let below = before ?? .max
        guard let anchor = try filter.ids(db, above: 0, below: below, newestFirst: true, limit: 1).first,
            let newest = try Double.fetchOne(db, sql: "SELECT timestamp FROM event WHERE id = ?", arguments: [anchor])
        else {
            return RawPage(events: RawEventList(), nextCursor: nil, total: total, matching: min(found, countLimit), matchingCapped: found > countLimit)
        }
        let start = newest - seconds
        var older = filter
        older.until = EventRecord.date(ofTimestampColumn: start)
        let boundary = try older.ids(db, above: 0, below: below, newestFirst: true, limit: 1).first ?? 0
        let (events, next) = try rawPage(db, matching: filter, above: boundary, below: below, newestFirst: true, limit: limit)
        let window = EventRecord.date(ofTimestampColumn: start)...EventRecord.date(ofTimestampColumn: newest)
        return RawPage(events: events, nextCursor: next ?? (boundary > 0 ? events.ids.last : nil), total: total,
            matching: min(found, countLimit), matchingCapped: found > countLimit, window: window)
    }

    /// Runs `body` in a read transaction on a queue of the history's (``CallbackReaders``; in memory, GRDB's
    /// `asyncRead` on the history's queue) and hands its result to `completion` there: no task, and no thread waits
    /// for a reader.
    private func read<T>(_ completion: @escaping @Sendable (Result<T, any Error>) -> Void, _ body: @escaping @Sendable (Database) throws -> T) {
        if let callbackReaders { return callbackReaders.read(body, completion: completion) }
        writer.asyncRead { access in
            completion(Result { try body(access.get()) })
        }
    }

    /// As ``latestPage(matching:before:limit:)`` (or, with `after`, ``page(matching:after:limit:)``), without decoding.
    public func rawPage(matching filter: HistoryFilter, before: Int64? = nil, after: Int64? = nil, limit: Int = 100) async throws
        -> (events: RawEventList, nextCursor: Int64?)
    {
        try await writer.read { db in try Self.rawPage(db, matching: filter, before: before, after: after, limit: limit) }
    }

    static func rawPage(_ db: Database, matching filter: HistoryFilter, before: Int64?, after: Int64?, limit: Int) throws
        -> (events: RawEventList, nextCursor: Int64?)
    {
        try rawPage(db, matching: filter, above: after ?? 0, below: after == nil ? before ?? .max : .max, newestFirst: after == nil,
            limit: limit)
    }

    /// The events matching `filter` with `above < id < below`, newest or oldest first, at most `limit`; the cursor of
    /// the next page when there are more. One cached statement; each row's ID and view are copied from SQLite's
    /// buffer into the page's (no `Row`, no `String` per event).
    static func rawPage(_ db: Database, matching filter: HistoryFilter, above: Int64, below: Int64, newestFirst: Bool, limit: Int) throws
        -> (events: RawEventList, nextCursor: Int64?)
    {
        let limit = max(1, limit)
        guard below > above, below - above > 1 else { return (RawEventList(), nil) }
        let (sql, arguments) = filter.query(select: "id, payload", above: above, below: below, newestFirst: newestFirst,
            limit: limit + 1)
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        var list = RawEventList()
        list.ids.reserveCapacity(min(limit + 1, 1000))
        list.json.reserveCapacity(min(limit, 1000) * 800)
        var more = false
        while true {
            let code = sqlite3_step(handle)
            guard code == SQLITE_ROW else {
                guard code == SQLITE_DONE else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
                }
                break
            }
            if list.ids.count == limit {
                more = true
                break
            }
            if !list.ids.isEmpty { list.json.append(UInt8(ascii: ",")) }
            list.ids.append(sqlite3_column_int64(handle, 0))
            if let text = sqlite3_column_text(handle, 1) {
                list.json.append(contentsOf: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, 1))))
            }
        }
        return (list, more ? list.ids.last : nil)
    }

    /// Up to `limit` rows matching `filter` in `(cursor, last]`, oldest first, with their ``EventFacts``, and how far
    /// the read got (`last` once nothing more matches up to it): what the live feed reads after a commit, or for a
    /// client's gap. Nothing is decoded: the feed filters on the facts and sends the stored JSON.
    public func newRawEvents(
        matching filter: HistoryFilter = .all, after cursor: Int64, upTo last: Int64, limit: Int = 1000
    ) async throws -> (events: [RawEventRow], reached: Int64) {
        guard cursor < last else { return ([], cursor) }
        let limit = max(1, limit)
        let rows = try await writer.read { db in try Self.rawRows(db, matching: filter, after: cursor, upTo: last, limit: limit) }
        // A short batch means nothing else matches up to `last`.
        return (rows, rows.count < limit ? last : (rows.last?.id ?? last))
    }

    /// Up to `limit` rows matching `filter` with `cursor < id <= last`, in ID order, each with its ``EventFacts``
    /// (its session's ID, device and app read once per session).
    static func rawRows(_ db: Database, matching filter: HistoryFilter, after cursor: Int64, upTo last: Int64, limit: Int) throws
        -> [RawEventRow]
    {
        let (sql, arguments) = filter.query(select: "id, payload, kind, summary, httpStatus, sessionKey, requestorID, mvpdID, timestamp",
            above: cursor, below: last + 1, newestFirst: false, limit: limit)
        let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
        let session = try db.cachedStatement(sql: "SELECT id, deviceID, bundleID FROM session WHERE key = ?")
        var sessions: [Int64: (id: UUID, deviceID: String, bundleID: String)] = [:]
        // Columns by position: by name, GRDB lowercases the name on every read.
        return try rows.map { row -> RawEventRow in
            let key: Int64 = row[5]
            if sessions[key] == nil, let found = try Row.fetchOne(session, arguments: [key]) {
                let id: String = found[0]
                sessions[key] = (UUID(uuidString: id) ?? UUID(), found[1], found[2])
            }
            let owner = sessions[key] ?? (UUID(), "", "")
            let kind: String = row[2]
            return RawEventRow(id: row[0], view: row[1], facts: EventFacts(
                sessionID: owner.id, deviceID: owner.deviceID, bundleID: owner.bundleID, requestorID: row[6], mvpdID: row[7],
                kind: EventKind(rawValue: kind) ?? .error, summary: row[3], timestamp: row[8], httpStatus: row[4]))
        }
    }
}
