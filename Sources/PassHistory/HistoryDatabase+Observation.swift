import PassEvents
import GRDB

extension HistoryDatabase {
    /// The events matching `filter` stored after `cursor` (`nil`: from the first event; ``latestCursor()``: only
    /// what comes next), delivered in batches as they are committed, oldest first, each at most `batchSize` long.
    ///
    /// Built on GRDB's `ValueObservation` of the newest event ID: SQLite's commit hook wakes it, nothing polls.
    /// The stream ends when the caller stops iterating (or on a database error).
    public func observeNewEvents(
        matching filter: HistoryFilter = .all, after cursor: Int64? = nil, batchSize: Int = 1000
    ) -> AsyncStream<[StoredEvent]> {
        let writer = self.writer
        let batchSize = max(1, batchSize)
        return AsyncStream { continuation in
            let task = Task {
                let newest = ValueObservation
                    .tracking { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM event") ?? 0 }
                    .removeDuplicates()
                var cursor = cursor ?? 0
                do {
                    for try await last in newest.values(in: writer) where last > cursor {
                        while cursor < last, !Task.isCancelled {
                            let (batch, reached) = try await Self.batch(
                                in: writer, matching: filter, after: cursor, upTo: last, limit: batchSize)
                            cursor = reached
                            if !batch.isEmpty { continuation.yield(batch) }
                        }
                    }
                } catch {}
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The newest event ID (0 when empty) now and after every commit that changes it: what one live feed watches
    /// before reading what is new once for all its clients (``newEvents(after:upTo:limit:)``).
    ///
    /// GRDB's `ValueObservation` of `MAX(id)`: SQLite's commit hook wakes it, nothing polls. Ends when the caller
    /// stops iterating or on a database error.
    public func observeNewestEventID() -> AsyncStream<Int64> {
        let writer = self.writer
        return AsyncStream { continuation in
            let task = Task {
                let newest = ValueObservation
                    .tracking { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM event") ?? 0 }
                    .removeDuplicates()
                do {
                    for try await last in newest.values(in: writer) { continuation.yield(last) }
                } catch {}
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Up to `limit` events matching `filter` in `(cursor, last]`, oldest first, and how far the read got (`last`
    /// once nothing more matches up to it): a live feed's read of what a commit added, or of a client's gap.
    public func newEvents(
        matching filter: HistoryFilter = .all, after cursor: Int64, upTo last: Int64, limit: Int = 1000
    ) async throws -> (events: [StoredEvent], reached: Int64) {
        guard cursor < last else { return ([], cursor) }
        return try await Self.batch(in: writer, matching: filter, after: cursor, upTo: last, limit: max(1, limit))
    }

    /// Up to `limit` events matching `filter` in `(cursor, last]`, and how far that read got.
    static func batch(
        in writer: any DatabaseWriter, matching filter: HistoryFilter, after cursor: Int64, upTo last: Int64, limit: Int
    ) async throws -> (events: [StoredEvent], reached: Int64) {
        let records = try await writer.read { db in
            let ids = try filter.ids(db, above: cursor, below: last + 1, newestFirst: false, limit: limit)
            return try HistoryDatabase.records(db, ids: ids, newestFirst: false)
        }
        let decoder = EventCoding.viewDecoder
        let events = try records.map { try $0.stored(decoder: decoder) }
        // A short batch means nothing else matches up to `last`.
        let reached = records.count < limit ? last : (events.last?.id ?? last)
        return (events, reached)
    }
}
