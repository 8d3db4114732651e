import GRDB

/// Finds the events matching a filter through the block index: block by block (newest first, or oldest first), the
/// bitmaps of the filter's facet values are combined into candidate event IDs, and the candidates are checked with
/// the filter's SQL (``HistoryFilter/request(after:upTo:)``), which stays the one definition of a match. The bitmaps
/// only decide which rows SQLite reads.
enum BlockScan {
    /// The IDs of the events matching `filter` with `lower < id < upper`, in ID order (descending when `newestFirst`),
    /// at most `limit`.
    static func ids(
        _ db: Database, matching filter: HistoryFilter, above lower: Int64, below upper: Int64, newestFirst: Bool, limit: Int
    ) throws -> [Int64] {
        var criteria = try FacetCriteria(filter, db)
        guard !criteria.matchesNothing, limit > 0, upper - lower > 1 else { return [] }
        guard criteria.usesIndex else {
            // Nothing to narrow by: walk the rows in ID order, as SQLite does best.
            var request = filter.request(after: lower, upTo: upper - 1)
            if newestFirst { request = request.reversed() }
            return try request.select(EventRecord.Columns.id).limit(limit).asRequest(of: Int64.self).fetchAll(db)
        }
        guard let span = try blockSpan(db, lower: lower, upper: upper) else { return [] }
        criteria = try prefetchingSessions(db, criteria, span)
        var found: [Int64] = []
        var width: Int64 = 4
        var next = newestFirst ? span.upperBound : span.lowerBound
        while found.count < limit, span.contains(next) {
            let window = newestFirst ? max(span.lowerBound, next - width + 1)...next : next...min(span.upperBound, next + width - 1)
            var candidates = try self.candidates(db, criteria, window).flatMap { block, bits in bits.ids(in: block) }
                .filter { $0 > lower && $0 < upper }
            if newestFirst { candidates.reverse() }
            // Bitmaps decide alone unless text or time must be read: then check a few more than needed at once.
            let chunk = criteria.checksRows ? 1000 : limit - found.count
            var start = 0
            while start < candidates.count, found.count < limit {
                let slice = candidates[start..<min(start + max(chunk, limit - found.count), candidates.count)]
                found += try check(db, filter, Array(slice), newestFirst: newestFirst, limit: limit - found.count)
                start += slice.count
            }
            next = newestFirst ? window.lowerBound - 1 : window.upperBound + 1
            width = min(width * 4, 4096)
        }
        return found
    }

    /// How many events match `filter`, counting stops past `limit`.
    static func count(_ db: Database, matching filter: HistoryFilter, limit: Int) throws -> Int {
        let criteria = try FacetCriteria(filter, db)
        guard !criteria.matchesNothing else { return 0 }
        guard criteria.usesIndex else { return try filter.request(after: nil).limit(limit).fetchCount(db) }
        guard let span = try blockSpan(db, lower: 0, upper: .max) else { return 0 }
        var total = 0
        var start = span.lowerBound
        while start <= span.upperBound, total < limit {
            let window = start...min(span.upperBound, start + 4095)
            let blocks = try candidates(db, criteria, window)
            if criteria.checksRows {
                let ids = blocks.flatMap { block, bits in bits.ids(in: block) }
                for offset in stride(from: 0, to: ids.count, by: 1000) where total < limit {
                    let slice = ids[offset..<min(offset + 1000, ids.count)]
                    total += try condition(filter, Array(slice)).fetchCount(db)
                }
            } else {
                total += blocks.reduce(0) { $0 + $1.bits.count }
            }
            start = window.upperBound + 1
        }
        return min(total, limit)
    }

    /// The IDs of every event with `facet` = `value`, ascending.
    static func ids(_ db: Database, facet: EventFacet, value: FacetValue) throws -> [Int64] {
        try bits(db, .equals(facet, value), blocks: 0...Int64.max).sorted { $0.key < $1.key }.flatMap { block, bits in bits.ids(in: block) }
    }

    // MARK: - Steps

    /// The blocks holding events with IDs between `lower` and `upper` (exclusive), or nil when there are none.
    private static func blockSpan(_ db: Database, lower: Int64, upper: Int64) throws -> ClosedRange<Int64>? {
        guard let row = try Row.fetchOne(db, sql: "SELECT MIN(block), MAX(block) FROM event_block"),
            let first: Int64 = row[0], let last: Int64 = row[1]
        else { return nil }
        let low = max(first, BlockBits.block(of: lower)), high = min(last, BlockBits.block(of: upper))
        return low <= high ? low...high : nil
    }

    /// The candidate events of the blocks in `window`, ascending by block.
    private static func candidates(_ db: Database, _ criteria: FacetCriteria, _ window: ClosedRange<Int64>) throws
        -> [(block: Int64, bits: BlockBits)]
    {
        var matching: [Int64: BlockBits]?
        for condition in criteria.required {
            let found = try bits(db, condition, blocks: window)
            if let current = matching {
                var both: [Int64: BlockBits] = [:]
                for (block, bits) in current {
                    if let other = found[block], !(bits & other).isEmpty { both[block] = bits & other }
                }
                matching = both
            } else {
                matching = found
            }
            if matching?.isEmpty == true { return [] }
        }
        if criteria.from != nil || criteria.until != nil {
            let spans = try Row.fetchAll(db, sql: "SELECT block, minTime, maxTime FROM event_block WHERE block BETWEEN ? AND ?",
                arguments: [window.lowerBound, window.upperBound])
            var inWindow: [Int64: BlockBits] = [:]
            for span in spans {
                let (block, low, high): (Int64, Double, Double) = (span[0], span[1], span[2])
                if let from = criteria.from, high < from { continue }
                if let until = criteria.until, low >= until { continue }
                inWindow[block] = matching.map { $0[block] } ?? .all
            }
            matching = inWindow.compactMapValues { $0 }
        }
        guard var result = matching else { return [] }
        for condition in criteria.excluded {
            for (block, bits) in try bits(db, condition, blocks: window) where result[block] != nil { result[block]! = result[block]! - bits }
        }
        return result.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// `criteria` with the bitmaps of its session conditions read for all of `span` at once.
    private static func prefetchingSessions(_ db: Database, _ criteria: FacetCriteria, _ span: ClosedRange<Int64>) throws -> FacetCriteria {
        var criteria = criteria
        for index in criteria.required.indices where criteria.required[index].facet == .session {
            criteria.required[index].prefetched = try bits(db, criteria.required[index], blocks: span)
        }
        for index in criteria.excluded.indices where criteria.excluded[index].facet == .session {
            criteria.excluded[index].prefetched = try bits(db, criteria.excluded[index], blocks: span)
        }
        return criteria
    }

    /// Per block in `blocks`, the events meeting `condition` (the OR of its values' bitmaps).
    private static func bits(_ db: Database, _ condition: FacetCriteria.Condition, blocks: ClosedRange<Int64>) throws -> [Int64: BlockBits] {
        if let prefetched = condition.prefetched { return prefetched.filter { blocks.contains($0.key) } }
        var arguments: StatementArguments = [condition.facet.rawValue]
        arguments += condition.arguments
        arguments += [blocks.lowerBound, blocks.upperBound]
        let rows = try Row.fetchCursor(db, sql: """
            SELECT block, b0, b1, b2, b3 FROM event_facet WHERE facet = ? AND \(condition.condition) AND block BETWEEN ? AND ?
            """, arguments: arguments)
        var result: [Int64: BlockBits] = [:]
        while let row = try rows.next() {
            let bits = BlockBits(columns: (row[1], row[2], row[3], row[4]))
            result[row[0], default: .none] = result[row[0], default: .none] | bits
        }
        return result
    }

    /// The events among `ids` that match `filter`, in the scan's order, at most `limit`.
    private static func check(_ db: Database, _ filter: HistoryFilter, _ ids: [Int64], newestFirst: Bool, limit: Int) throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        var request = condition(filter, ids)
        if newestFirst { request = request.reversed() }
        return try request.select(EventRecord.Columns.id).limit(limit).asRequest(of: Int64.self).fetchAll(db)
    }

    /// `filter` restricted to `ids`: a range when they are dense (a time window's whole blocks), a list otherwise.
    private static func condition(_ filter: HistoryFilter, _ ids: [Int64]) -> QueryInterfaceRequest<EventRecord> {
        let request = filter.request(after: nil)
        guard let first = ids.first, let last = ids.last else { return request.none() }
        let low = min(first, last), high = max(first, last)
        if Int64(ids.count) * 2 >= high - low + 1 {
            return request.filter(EventRecord.Columns.id >= low && EventRecord.Columns.id <= high)
        }
        return request.filter(sql: "id IN (\(ids.map(String.init).joined(separator: ",")))")
    }
}
