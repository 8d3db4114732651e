import AccessEnabler
import Foundation

/// Buffers events on their way into a ``HistoryDatabase`` and writes them in batches: when `maxCount` events
/// are waiting, or `maxDelay` after the first of them arrived, whichever comes first.
///
/// The producer never waits on disk: it hands events to ``add(_:)`` or an `AsyncStream` to ``consume(_:)``.
/// A batch that fails to write is counted in ``droppedCount`` and its error kept in ``lastError``.
public actor EventBatcher {
    /// Where batches go.
    public let database: HistoryDatabase
    /// Flush once this many events are waiting.
    public let maxCount: Int
    /// Flush this long after the first waiting event arrived.
    public let maxDelay: Duration

    private var buffer: [EntitlementEvent] = []
    /// Identifies the current buffer, so a timer set for an earlier one does nothing.
    private var generation = 0
    private var timer: Task<Void, Never>?

    /// Events written so far (duplicates of stored events not counted).
    public private(set) var writtenCount = 0
    /// Events lost because their batch failed to write.
    public private(set) var droppedCount = 0
    /// Why the latest failed batch failed.
    public private(set) var lastError: (any Error)?
    /// Batches written so far.
    public private(set) var flushCount = 0

    /// Creates a batcher writing to `database`.
    public init(database: HistoryDatabase, maxCount: Int = 500, maxDelay: Duration = .milliseconds(100)) {
        self.database = database
        self.maxCount = max(1, maxCount)
        self.maxDelay = maxDelay
    }

    /// Queues one event; writes the batch now if it is full, else makes sure a timer will.
    public func add(_ event: EntitlementEvent) {
        buffer.append(event)
        if buffer.count >= maxCount {
            flush()
        } else if buffer.count == 1 {
            let generation = self.generation
            let delay = maxDelay
            timer = Task { [weak self] in
                try? await Task.sleep(for: delay)
                guard !Task.isCancelled else { return }
                await self?.timerFired(generation: generation)
            }
        }
    }

    /// Queues every event of `stream` until it ends, then writes what is left.
    public func consume(_ stream: AsyncStream<EntitlementEvent>) async {
        for await event in stream { add(event) }
        finish()
    }

    /// Writes the waiting events now.
    public func flush() {
        timer?.cancel()
        timer = nil
        generation += 1
        guard !buffer.isEmpty else { return }
        let batch = buffer
        buffer.removeAll(keepingCapacity: true)
        do {
            writtenCount += try database.append(batch)
            flushCount += 1
        } catch {
            droppedCount += batch.count
            lastError = error
        }
    }

    /// Writes the waiting events; call when no more will come.
    public func finish() {
        flush()
    }

    /// How many events are waiting.
    public var pendingCount: Int { buffer.count }

    private func timerFired(generation: Int) {
        guard generation == self.generation else { return }
        flush()
    }
}
