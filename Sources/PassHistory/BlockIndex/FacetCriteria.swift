import GRDB

/// What a ``HistoryFilter`` asks of the block index: facet conditions every match meets, facet conditions no match
/// meets, and a time window. Text is not indexed: candidates are checked against the filter's SQL (see ``BlockScan``).
struct FacetCriteria {
    /// One facet condition: rows of `event_facet` with this facet whose `value` meets `condition`.
    struct Condition {
        var facet: EventFacet
        var condition: String
        var arguments: StatementArguments
        /// The condition's bitmaps for every block, read once by a scan when the condition names sessions: a session
        /// spans few blocks, and reading them per window repeated one seek per session each time.
        var prefetched: [Int64: BlockBits]?

        static func equals(_ facet: EventFacet, _ value: FacetValue) -> Condition {
            Condition(facet: facet, condition: "value = ?", arguments: [value])
        }

        /// The events of the sessions meeting `condition` (on the `session` table). Their keys are listed in the
        /// condition, so SQLite seeks each one's entries (a subquery made it read every session's).
        static func sessions(_ db: Database, where condition: String, _ arguments: StatementArguments) throws -> Condition {
            let keys = try Int64.fetchAll(db, sql: "SELECT key FROM session WHERE \(condition)", arguments: arguments)
            return Condition(facet: .session, condition: "value IN (\(keys.map(String.init).joined(separator: ",")))", arguments: [])
        }

        static func among(_ facet: EventFacet, _ values: [FacetValue]) -> Condition {
            let marks = Array(repeating: "?", count: values.count).joined(separator: ",")
            return Condition(facet: facet, condition: "value IN (\(marks))", arguments: StatementArguments(values))
        }
    }

    var required: [Condition] = []
    var excluded: [Condition] = []
    var from: Double?
    var until: Double?
    /// True when the bitmaps alone do not decide a match: a text search, or a time window (checked per event).
    var checksRows = false
    /// True when the filter can match nothing (a session the history does not hold).
    var matchesNothing = false

    /// True when the index narrows nothing: the events are walked in ID order instead.
    var usesIndex: Bool { !required.isEmpty || from != nil || until != nil }

    init(_ filter: HistoryFilter, _ db: Database) throws {
        if let sessionID = filter.sessionID {
            if let key = try Int64.fetchOne(db, sql: "SELECT key FROM session WHERE id = ?", arguments: [sessionID.uuidString]) {
                required.append(.equals(.session, .integer(key)))
            } else {
                matchesNothing = true
            }
        }
        // Device and app: the events of the device's (app's) sessions.
        if let deviceID = filter.deviceID { required.append(try .sessions(db, where: "deviceID = ? COLLATE NOCASE", [deviceID])) }
        if let bundleID = filter.bundleID { required.append(try .sessions(db, where: "bundleID = ? COLLATE NOCASE", [bundleID])) }
        // Programmers and MVPDs match in any ASCII case: the index holds each as spelled, so read those spellings.
        for (facet, value) in [(EventFacet.requestor, filter.requestorID), (.mvpd, filter.mvpdID)] {
            guard let value else { continue }
            let spellings = try Self.spellings(db, facet, of: [value])
            if spellings.isEmpty { matchesNothing = true }
            required.append(.among(facet, spellings))
        }
        if !filter.kinds.isEmpty { required.append(.among(.kind, filter.kinds.sorted { $0.rawValue < $1.rawValue }.map { .text($0.rawValue) })) }
        if let codes = filter.httpStatusCodes {
            required.append(Condition(facet: .status, condition: "value BETWEEN ? AND ?", arguments: [codes.lowerBound, codes.upperBound]))
        }
        if let status = filter.httpStatus {
            if let range = status.sqlRange {
                required.append(Condition(facet: .status, condition: "value BETWEEN ? AND ?", arguments: [range.low, range.high]))
            } else {
                required.append(Condition(facet: .status, condition: "(value < 200 OR value >= 400)", arguments: []))
            }
        }
        for (facet, values) in [(EventFacet.requestor, filter.excludedRequestorIDs), (.mvpd, filter.excludedMvpdIDs)] where !values.isEmpty {
            let spellings = try Self.spellings(db, facet, of: values.sorted())
            if !spellings.isEmpty { excluded.append(.among(facet, spellings)) }
        }
        if !filter.excludedKinds.isEmpty {
            excluded.append(.among(.kind, filter.excludedKinds.sorted { $0.rawValue < $1.rawValue }.map { .text($0.rawValue) }))
        }
        if !filter.excludedBundleIDs.isEmpty {
            let excludedApps = filter.excludedBundleIDs.sorted()
            let marks = Array(repeating: "?", count: excludedApps.count).joined(separator: ",")
            excluded.append(try .sessions(db, where: "bundleID COLLATE NOCASE IN (\(marks))", StatementArguments(excludedApps)))
        }
        from = filter.from?.timeIntervalSince1970
        until = filter.until?.timeIntervalSince1970
        checksRows = !(filter.text ?? "").isEmpty || from != nil || until != nil
    }

    /// The spellings the index holds of a text facet's `values`, ASCII case folded as SQLite's `NOCASE` does.
    ///
    /// A facet has a handful of distinct values (Programmers, MVPDs), each in many blocks: the recursive query steps
    /// from one distinct value to the next through the primary key, one seek per value, instead of reading every row.
    static func spellings(_ db: Database, _ facet: EventFacet, of values: [String]) throws -> [FacetValue] {
        let marks = Array(repeating: "?", count: values.count).joined(separator: ",")
        var arguments: StatementArguments = [facet.rawValue]
        arguments += StatementArguments(values)
        return try String.fetchAll(db, sql: """
            WITH RECURSIVE spelling(value) AS (
                SELECT (SELECT MIN(value) FROM event_facet WHERE facet = ?1)
                UNION ALL
                SELECT (SELECT MIN(value) FROM event_facet WHERE facet = ?1 AND value > spelling.value)
                FROM spelling WHERE spelling.value IS NOT NULL
            )
            SELECT value FROM spelling WHERE value IS NOT NULL AND value COLLATE NOCASE IN (\(marks))
            """, arguments: arguments).map(FacetValue.text)
    }
}
