import DequeModule
import Foundation
import Locking

/// Streams an app's ``EntitlementEvent``s to a PassConsole (`POST /api/ingest`, NDJSON), so support staff see the
/// sessions of several apps and devices in one console.
///
/// Never blocks the app: events go into a bounded buffer and a background task sends them in batches. When the
/// console is slow or away, the buffer keeps the newest ``capacity`` events, counts the ones it had to drop in
/// ``droppedCount``, and tells the console about them (`X-PassConsole-Dropped` header) once it answers again.
///
/// ```swift
/// let reporter = EventReporter(console: URL(string: "http://127.0.0.1:8080")!)
/// reporter.attach(to: enabler)
/// …
/// await reporter.finish()   // sends what is left
/// ```
public final class EventReporter: Sendable {
    /// The ingest endpoint (`<console>/api/ingest`).
    public let endpoint: URL
    /// Events kept while the console does not answer.
    public let capacity: Int
    /// Events per request.
    public let batchSize: Int
    /// How long the first event of a batch may wait for others.
    public let interval: Duration

    private struct State {
        /// A deque: when the console is away and the buffer is full, each new event drops the oldest; an array
        /// moved every other event along with it (measured: 155 µs per event at 10,000 events, the backend's
        /// recording at 0.1x of its speed without).
        var buffer = Deque<EntitlementEvent>()
        /// How many events ever left the front of ``buffer`` (sent or dropped): the position of its first event, so a
        /// sent batch leaves by position, not by looking each event up.
        var removedBefore = 0
        var dropped = 0
        var droppedReported = 0
        var sent = 0
        var lastError: String?
        var sources: [Task<Void, Never>] = []
        var wake: CheckedContinuation<Void, Never>?
        var finished = false
        /// A batch is on its way: one request at a time, so no batch goes twice.
        var sending = false
    }
    private let state = Mutex(State())
    private let poster: any EventPoster
    private let headers: [String: String]
    private let sender = Mutex<Task<Void, Never>?>(nil)

    /// Creates a reporter for the console at `console` (its base URL).
    /// - Parameters:
    ///   - headers: extra request headers, e.g. `Authorization: Bearer <token>` for a console bound beyond loopback.
    public init(
        console: URL, capacity: Int = 10_000, batchSize: Int = 500, interval: Duration = .milliseconds(200),
        headers: [String: String] = [:], poster: (any EventPoster)? = nil
    ) {
        endpoint = console.appendingPathComponent("api/ingest")
        self.capacity = max(1, capacity)
        self.batchSize = max(1, batchSize)
        self.interval = interval
        self.headers = headers
        self.poster = poster ?? URLSessionPoster()
        sender.withLock { $0 = Task.detached { [weak self] in await self?.sendLoop() } }
    }

    deinit {
        sender.withLock { $0?.cancel() }
    }

    /// Reports every event of `events` until it ends.
    public func report(_ events: AsyncStream<EntitlementEvent>) {
        let task = Task.detached { [weak self] in
            for await event in events { self?.add(event) }
        }
        state.withLock { $0.sources.append(task) }
    }

    /// Queues one event; never waits.
    public func add(_ event: EntitlementEvent) {
        let wake = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.finished else { return nil }
            state.buffer.append(event)
            if state.buffer.count > capacity {
                let excess = state.buffer.count - capacity
                state.dropped += excess
                state.buffer.removeFirst(excess)
                state.removedBefore += excess
            }
            // The sender parks only while nothing waits: the first event wakes it (it then gathers for `interval`).
            defer { state.wake = nil }
            return state.wake
        }
        wake?.resume()
    }

    /// Counts `count` events dropped before they reached this reporter (a recorder's queue overflowed): told to the
    /// console with the next batch, as the reporter's own drops are.
    public func lost(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { state in
            let (sum, overflow) = state.dropped.addingReportingOverflow(count)
            state.dropped = overflow ? .max : sum
        }
    }

    /// Events the console accepted.
    public var sentCount: Int { state.withLock { $0.sent } }
    /// Events dropped because the buffer was full.
    public var droppedCount: Int { state.withLock { $0.dropped } }
    /// Events waiting to be sent.
    public var pendingCount: Int { state.withLock { $0.buffer.count } }
    /// Why the last send failed, if it did.
    public var lastError: String? { state.withLock { $0.lastError } }

    /// Sends everything waiting now (one request per batch); returns whether all of it was accepted.
    @discardableResult
    public func flush() async -> Bool {
        while true {
            switch nextBatch() {
            case .empty: return true
            case .busy: try? await Task.sleep(for: .milliseconds(5))
            case .batch(let events, let dropped, let end):
                let sent = await send((events, dropped, end))
                state.withLock { $0.sending = false }
                guard sent else { return false }
            }
        }
    }

    /// Stops listening, sends what is left (trying for up to `timeout`), and stops the background sender.
    public func finish(timeout: Duration = .seconds(5)) async {
        let sources = state.withLock { $0.sources }
        // Let events already published reach the buffer before the sources stop.
        try? await Task.sleep(for: .milliseconds(50))
        for source in sources { source.cancel() }
        let deadline = ContinuousClock.now + timeout
        while pendingCount > 0, ContinuousClock.now < deadline {
            if await flush() { break }
            try? await Task.sleep(for: .milliseconds(100))
        }
        let wake = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            defer { state.wake = nil }
            return state.wake
        }
        sender.withLock { $0?.cancel() }
        wake?.resume()
    }

    // MARK: - Sending

    private func sendLoop() async {
        var backoff = Duration.milliseconds(200)
        while !Task.isCancelled {
            await waitForWork()
            guard !Task.isCancelled, !state.withLock({ $0.finished }) else { return }
            if await flush() {
                backoff = .milliseconds(200)
            } else {
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }

    /// Returns once events wait: parked while there are none, then up to `interval` more for the batch to fill
    /// (at once when it is full already). The first event of a batch is sent within `interval` however long the
    /// reporter was idle before; once, after an idle spell, events fewer than a batch waited until `finish()`.
    private func waitForWork() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if !state.buffer.isEmpty || state.finished { return true }
                state.wake = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        if state.withLock({ $0.buffer.count < batchSize && !$0.finished }) { try? await Task.sleep(for: interval) }
    }

    private enum Next {
        case empty
        case busy
        case batch([EntitlementEvent], dropped: Int, end: Int)
    }

    /// The next batch to send, marking a send in flight; `busy` while another send is.
    private func nextBatch() -> Next {
        state.withLock { state in
            guard !state.buffer.isEmpty else { return .empty }
            guard !state.sending else { return .busy }
            state.sending = true
            let events = Array(state.buffer.prefix(batchSize))
            return .batch(events, dropped: state.dropped - state.droppedReported, end: state.removedBefore + events.count)
        }
    }

    private func send(_ batch: (events: [EntitlementEvent], dropped: Int, end: Int)) async -> Bool {
        var headers = headers
        headers["Content-Type"] = "application/x-ndjson"
        headers["X-PassConsole-Dropped"] = String(batch.dropped)
        do {
            let status = try await poster.post(try EntitlementEvent.Wire.ndjson(batch.events), to: endpoint, headers: headers)
            guard (200..<300).contains(status) else { throw ReportError(message: "the console answered \(status)") }
        } catch {
            state.withLock { $0.lastError = (error as? ReportError)?.message ?? "\(error)" }
            return false
        }
        state.withLock { state in
            // Only the events sent leave the buffer (those still at its front; a full buffer may have dropped some
            // meanwhile): anything added meanwhile stays, in order.
            let sent = max(0, min(state.buffer.count, batch.end - state.removedBefore))
            state.buffer.removeFirst(sent)
            state.removedBefore += sent
            state.sent += batch.events.count
            state.droppedReported += batch.dropped
            state.lastError = nil
        }
        return true
    }

    private struct ReportError: Error { var message: String }
}
