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
    /// The newest batch's write: the next one starts after it.
    private var writing: Task<Void, Never>?

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

    /// Queues one event; starts writing the batch now if it is full, else makes sure a timer will.
    public func add(_ event: EntitlementEvent) {
        buffer.append(event)
        if buffer.count >= maxCount {
            startWrite()
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
        await finish()
    }

    /// Writes the waiting events now; returns when every batch taken so far is stored (or failed).
    public func flush() async {
        startWrite()
        await writing?.value
    }

    /// Returns when every batch taken so far is stored (or failed); the events still waiting stay waiting.
    public func waitForWrites() async {
        await writing?.value
    }

    /// Writes the waiting events; call when no more will come.
    public func finish() async {
        await flush()
    }

    /// Takes the waiting events as one batch and writes it after the batches before it, so batches land in the
    /// order they were taken. The write is awaited, never waited for on a thread: a batch held up behind a long
    /// write (a large ingest) leaves the Swift concurrency pool free.
    private func startWrite() {
        timer?.cancel()
        timer = nil
        generation += 1
        guard !buffer.isEmpty else { return }
        let batch = buffer
        buffer.removeAll(keepingCapacity: true)
        let previous = writing
        let database = self.database
        writing = Task {
            await previous?.value
            let result: Result<Int, any Error>
            do { result = .success(try await database.append(batch)) } catch { result = .failure(error) }
            self.record(result, count: batch.count)
        }
    }

    private func record(_ result: Result<Int, any Error>, count: Int) {
        switch result {
        case .success(let written):
            writtenCount += written
            flushCount += 1
        case .failure(let error):
            droppedCount += count
            lastError = error
        }
    }

    /// How many events are waiting.
    public var pendingCount: Int { buffer.count }

    private func timerFired(generation: Int) {
        guard generation == self.generation else { return }
        startWrite()
    }
}
