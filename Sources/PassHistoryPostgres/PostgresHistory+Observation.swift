import PassEvents
import Foundation
import PassHistory
import PostgresNIO

extension PostgresHistory {
    /// The channel every append notifies, with the newest event ID as the payload, when its transaction commits.
    static let eventsChannel = "passconsole_events"

    /// The newest event ID (0 when empty) now and after every append that stores events, by this console or any
    /// other on the same database: PostgreSQL's `LISTEN`/`NOTIFY` (the append notifies inside its transaction, so the
    /// notice arrives once the events are visible), nothing polls. One pooled connection listens while the stream is
    /// iterated. Deletions (retention, a deleted session) send nothing. Ends when the caller stops iterating or on a
    /// connection error.
    public func observeNewestEventID() -> AsyncStream<Int64> {
        let client = self.client, logger = self.logger
        return AsyncStream { continuation in
            let task = Task {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: Self.eventsChannel) { notifications in
                            // Listening first, then reading: a commit in between is seen by one or the other.
                            var last = try await connection.query("SELECT COALESCE(max(id), 0) FROM event", logger: logger)
                                .collectColumn(Int64.self).first ?? 0
                            continuation.yield(last)
                            for try await notification in notifications {
                                guard let newest = Int64(notification.payload), newest != last else { continue }
                                last = newest
                                continuation.yield(newest)
                            }
                        }
                    }
                } catch {}
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The events matching `filter` stored after `cursor` (`nil`: from the first event; ``latestCursor()``: only what
    /// comes next), in batches as they are committed, oldest first, each at most `batchSize` long: built on
    /// ``observeNewestEventID()``.
    public func observeNewEvents(matching filter: HistoryFilter = .all, after cursor: Int64? = nil, batchSize: Int = 1000)
        -> AsyncStream<[StoredEvent]>
    {
        let newest = observeNewestEventID()
        let batchSize = max(1, batchSize)
        return AsyncStream { continuation in
            let task = Task {
                var cursor = cursor ?? 0
                do {
                    for await last in newest where last > cursor {
                        while cursor < last, !Task.isCancelled {
                            let page = try await self.decodedPage(matching: filter, above: cursor, below: last + 1, newestFirst: false,
                                limit: batchSize)
                            // A short batch means nothing else matches up to `last`.
                            cursor = page.nextCursor ?? last
                            if !page.events.isEmpty { continuation.yield(page.events) }
                        }
                    }
                } catch {}
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
