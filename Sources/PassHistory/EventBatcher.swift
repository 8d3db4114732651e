import PassEvents
import Foundation

/// Buffers events on their way into an ``EventHistory`` and writes them in batches: when `maxCount` events
/// are waiting, or `maxDelay` after the first of them arrived, whichever comes first. One batch is written at a
/// time, oldest events first.
///
/// The producer never waits on disk: it hands events to ``add(_:)`` or an `AsyncStream` to ``consume(_:)``.
/// When the history cannot be written (read-only, disk full, damaged, I/O error, a PostgreSQL server gone: whatever
/// the history itself calls a ``HistoryProblem``, ``EventHistory/problem(_:)``) the batch goes back to the buffer and
/// is tried again with a growing delay (``retryDelay``, doubling up to ``maxRetryDelay``), so the events land once
/// writing works again. The buffer holds at most ``maxPending`` events:
/// past that the oldest are dropped and counted in ``droppedCount``. A batch failing for any other reason (a bug,
/// not the disk) would fail again: it is dropped and counted.
public actor EventBatcher {
    /// Where batches go.
    public let database: any EventHistory
    /// Flush once this many events are waiting.
    public let maxCount: Int
    /// Flush this long after the first waiting event arrived.
    public let maxDelay: Duration
    /// At most this many events wait; past it the oldest are dropped.
    public let maxPending: Int
    /// The first retry's delay after a failed write; each further failure doubles it.
    public let retryDelay: Duration
    /// The longest delay between retries.
    public let maxRetryDelay: Duration
    /// Told when writing starts failing (each new kind of problem) and when it works again.
    private let onChange: (@Sendable (WriteState) -> Void)?

    /// What ``EventBatcher`` tells its observer.
    public enum WriteState: Sendable {
        /// A write failed; `waiting` events are kept and retried.
        case failing(HistoryProblem, waiting: Int)
        /// Writing works again after failing; `saved` events were written by the write that succeeded.
        case recovered(saved: Int)
    }

    private var buffer: [EntitlementEvent] = []
    /// Identifies the current buffer, so a timer set for an earlier one does nothing.
    private var generation = 0
    private var timer: Task<Void, Never>?
    /// The batch being written, if any, and its size.
    private var writing: Task<Void, Never>?
    private var writingCount = 0
    private var retry: Task<Void, Never>?

    /// Events written so far (duplicates of stored events not counted).
    public private(set) var writtenCount = 0
    /// Events lost: the oldest past ``maxPending``, and batches failing for a reason other than the disk.
    public private(set) var droppedCount = 0
    /// Why the latest failed batch failed.
    public private(set) var lastError: (any Error)?
    /// Why writing fails now: set by a failed write, cleared by the next one that succeeds.
    public private(set) var failure: HistoryProblem?
    /// Failed writes in a row.
    public private(set) var failedAttempts = 0
    /// Batches written so far.
    public private(set) var flushCount = 0

    /// Creates a batcher writing to `database`.
    public init(
        database: any EventHistory, maxCount: Int = 500, maxDelay: Duration = .milliseconds(100), maxPending: Int = 100_000,
        retryDelay: Duration = .milliseconds(250), maxRetryDelay: Duration = .seconds(30),
        onChange: (@Sendable (WriteState) -> Void)? = nil
    ) {
        self.database = database
        self.maxCount = max(1, maxCount)
        self.maxDelay = maxDelay
        self.maxPending = max(1, maxPending)
        self.retryDelay = retryDelay
        self.maxRetryDelay = max(retryDelay, maxRetryDelay)
        self.onChange = onChange
    }

    /// Queues one event; starts writing a batch now if one is full, else makes sure a timer will. While writing
    /// fails, the retry writes it.
    public func add(_ event: EntitlementEvent) {
        buffer.append(event)
        trim()
        guard failure == nil else { return }
        if buffer.count >= maxCount {
            startWrite()
        } else if timer == nil, writing == nil {
            startTimer()
        }
    }

    /// Queues every event of `stream` until it ends, then writes what is left.
    public func consume(_ stream: AsyncStream<EntitlementEvent>) async {
        for await event in stream { add(event) }
        await finish()
    }

    /// Writes the waiting events now (also while retrying: one attempt); returns when they are stored, or when a
    /// write failed (the events stay waiting for the retry).
    public func flush() async {
        while true {
            if writing == nil { startWrite() }
            guard let task = writing else { return }
            await task.value
            if failure != nil || buffer.isEmpty { break }
        }
        await waitForWrites()
    }

    /// Returns when no batch is being written (full batches taken meanwhile included); the events still waiting
    /// stay waiting.
    public func waitForWrites() async {
        while let task = writing { await task.value }
    }

    /// Writes the waiting events; call when no more will come.
    public func finish() async {
        await flush()
    }

    /// How many events wait to be stored (the batch being written included).
    public var pendingCount: Int { buffer.count + writingCount }

    /// Takes up to `maxCount` waiting events as a batch and writes it, unless a batch is on its way (its end starts
    /// the next). The write is awaited, never waited for on a thread: a batch held up behind a long write (a large
    /// ingest) leaves the Swift concurrency pool free.
    private func startWrite() {
        timer?.cancel()
        timer = nil
        retry?.cancel()
        retry = nil
        generation += 1
        guard writing == nil, !buffer.isEmpty else { return }
        let batch = Array(buffer.prefix(maxCount))
        buffer.removeFirst(batch.count)
        writingCount = batch.count
        let database = self.database
        writing = Task {
            let result: Result<Int, any Error>
            do { result = .success(try await database.append(batch)) } catch { result = .failure(error) }
            self.finished(batch, result)
        }
    }

    private func finished(_ batch: [EntitlementEvent], _ result: Result<Int, any Error>) {
        writing = nil
        writingCount = 0
        switch result {
        case .success(let written):
            writtenCount += written
            flushCount += 1
            if failure != nil {
                failure = nil
                failedAttempts = 0
                onChange?(.recovered(saved: batch.count))
            }
        case .failure(let error):
            lastError = error
            guard let problem = database.problem(error) else {
                droppedCount += batch.count
                break
            }
            buffer.insert(contentsOf: batch, at: 0)
            trim()
            if failure?.kind != problem.kind { onChange?(.failing(problem, waiting: buffer.count)) }
            failure = problem
            failedAttempts += 1
            scheduleRetry()
            return
        }
        if buffer.count >= maxCount {
            startWrite()
        } else if !buffer.isEmpty, timer == nil {
            startTimer()
        }
    }

    /// Drops the oldest waiting events past ``maxPending``.
    private func trim() {
        let excess = buffer.count - maxPending
        guard excess > 0 else { return }
        buffer.removeFirst(excess)
        droppedCount += excess
    }

    /// The delay before the retry after `failures` failed writes in a row: ``retryDelay`` doubled per failure after
    /// the first, at most ``maxRetryDelay``.
    func delay(afterFailures failures: Int) -> Duration {
        var delay = retryDelay
        for _ in 1..<min(max(1, failures), 64) where delay < maxRetryDelay { delay *= 2 }
        return min(delay, maxRetryDelay)
    }

    private func scheduleRetry() {
        let delay = delay(afterFailures: failedAttempts)
        retry = Task { [weak self] in
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled else { return }
            await self?.retryFired()
        }
    }

    private func retryFired() {
        retry = nil
        startWrite()
    }

    private func startTimer() {
        let generation = self.generation
        let delay = maxDelay
        timer = Task { [weak self] in
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled else { return }
            await self?.timerFired(generation: generation)
        }
    }

    private func timerFired(generation: Int) {
        guard generation == self.generation else { return }
        timer = nil
        startWrite()
    }
}
