import GRDB

/// Collects the block index entries of events being written — per (facet, value, block) the events' bits, per block
/// the time span — and merges them into `event_facet` and `event_block` in the same transaction.
///
/// The history's filters are served by this index instead of one B-tree index per column on `event`: a batch adds a
/// few dozen `event_facet` rows per 256 events instead of five index entries per event, which made ingest about
/// twice as fast (see the schema's v4 migration).
struct BlockIndexWriter {
    private struct Key: Hashable {
        var facet: EventFacet
        var value: FacetValue
        var block: Int64
    }

    private var bits: [Key: BlockBits] = [:]
    private var times: [Int64: (low: Double, high: Double)] = [:]

    /// Marks event `id` of session `sessionKey` in its block under each of its facet values.
    mutating func add(id: Int64, timestamp: Double, facets: EventFacets, sessionKey: Int64) {
        let block = BlockBits.block(of: id)
        bits[Key(facet: .kind, value: .text(facets.kind.rawValue), block: block), default: .none].insert(id)
        bits[Key(facet: .session, value: .integer(sessionKey), block: block), default: .none].insert(id)
        if let requestorID = facets.requestorID { bits[Key(facet: .requestor, value: .text(requestorID), block: block), default: .none].insert(id) }
        if let mvpdID = facets.mvpdID { bits[Key(facet: .mvpd, value: .text(mvpdID), block: block), default: .none].insert(id) }
        if let status = facets.httpStatus { bits[Key(facet: .status, value: .integer(Int64(status)), block: block), default: .none].insert(id) }
        if let span = times[block] {
            times[block] = (min(span.low, timestamp), max(span.high, timestamp))
        } else {
            times[block] = (timestamp, timestamp)
        }
    }

    var isEmpty: Bool { bits.isEmpty }

    /// Merges what was collected into the index: bits are OR-ed into existing rows (a block filled by two batches),
    /// time spans widened.
    func write(_ db: Database) throws {
        let facet = try DirectStatement(db, sql: """
            INSERT INTO event_facet (facet, value, block, b0, b1, b2, b3) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (facet, value, block) DO UPDATE SET
                b0 = b0 | excluded.b0, b1 = b1 | excluded.b1, b2 = b2 | excluded.b2, b3 = b3 | excluded.b3
            """)
        for (key, bits) in bits {
            let words = bits.columns
            let value: DirectStatement.Value = switch key.value {
            case .text(let text): .text(text)
            case .integer(let number): .integer(number)
            }
            try facet.execute(.integer(Int64(key.facet.rawValue)), value, .integer(key.block), .integer(words[0]), .integer(words[1]),
                .integer(words[2]), .integer(words[3]))
        }
        let block = try db.cachedStatement(sql: """
            INSERT INTO event_block (block, minTime, maxTime) VALUES (?, ?, ?)
            ON CONFLICT (block) DO UPDATE SET minTime = MIN(minTime, excluded.minTime), maxTime = MAX(maxTime, excluded.maxTime)
            """)
        for (number, span) in times { try block.execute(arguments: [number, span.low, span.high]) }
    }

    /// Builds the index entries of `blocks` again from the events they hold now (after events were deleted): their
    /// old entries go, blocks left empty drop out.
    static func rebuild(_ db: Database, blocks: Set<Int64>) throws {
        guard !blocks.isEmpty else { return }
        var writer = BlockIndexWriter()
        for block in blocks.sorted() {
            let first = BlockBits.firstID(of: block), last = first + BlockBits.size - 1
            try db.execute(sql: "DELETE FROM event_facet WHERE block = ?", arguments: [block])
            try db.execute(sql: "DELETE FROM event_block WHERE block = ?", arguments: [block])
            try writer.addStored(db, idsFrom: first, to: last)
        }
        try writer.write(db)
    }

    /// Adds the stored events with IDs in `first...last`.
    mutating func addStored(_ db: Database, idsFrom first: Int64, to last: Int64) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT id, timestamp, kind, requestorID, mvpdID, httpStatus, sessionKey FROM event WHERE id BETWEEN ? AND ?
            """, arguments: [first, last])
        while let row = try rows.next() {
            guard let kind = EventKind(rawValue: row[2]) else { continue }
            let facets = EventFacets(kind: kind, requestorID: row[3], mvpdID: row[4], httpStatus: row[5])
            add(id: row[0], timestamp: row[1], facets: facets, sessionKey: row[6])
        }
    }
}
