import Foundation
import Logging
import MicroHTTP
import PassHistory
import Locking

/// The console's live feed: one watcher of the history for every SSE client. After each commit it reads the new
/// rows once, writes each one's SSE bytes once from the stored JSON (``LiveEvent``, nothing decoded), and hands them
/// to every client, whose filter is checked in memory on the row's facts (``HistoryFilter/matches(_:)-(EventFacts)``).
/// The cost follows events, not events × clients.
///
/// Each client has a bounded buffer. A client too slow to keep up is sent a resync notice (``LiveEvent/resyncNotice``)
/// and its stream ends; it comes back with `Last-Event-ID`, reads its gap from the history on its own
/// (``catchUp(_:filter:subscription:rewrite:from:to:)``), and then joins the shared feed without a gap or a duplicate.
/// Nobody else waits for it.
public final class LiveFeed: Sendable {
    /// The feed's bounds.
    public struct Limits: Sendable {
        /// Bytes a client may have queued before it gets the resync notice.
        public var clientBuffer = 1 << 20
        /// Events a resuming client may have waiting while it reads its gap before the wait is dropped and read too.
        public var held = 5000
        /// Events read from the history at once.
        public var readBatch = 1000
        /// How often every client gets a keep-alive comment.
        public var heartbeat: Duration = .seconds(15)
        /// The `retry` a resync notice asks for (milliseconds).
        public var resyncRetryMilliseconds = 250
        public init() {}
    }

    struct State {
        /// Every event up to this ID has been published (or there was no client to publish to).
        var cursor: Int64 = 0
        var clients: [ObjectIdentifier: LiveClient] = [:]
        var start: Task<Void, any Error>?
        var tasks: [Task<Void, Never>] = []
        var stopped = false
        /// Clients sent the resync notice so far.
        var resyncs = 0
    }

    let history: any EventHistory
    let limits: Limits
    let logger: Logger
    let state = Mutex(State())

    public init(history: any EventHistory, limits: Limits = Limits(), logger: Logger = Logger(label: "passconsole.live")) {
        self.history = history
        self.limits = limits
        self.logger = logger
    }

    deinit { state.withLock { $0.tasks.forEach { $0.cancel() } } }

    /// Clients connected now (resuming ones included).
    public var clientCount: Int { state.withLock { $0.clients.count } }

    /// Clients sent the resync notice since the feed started.
    public var resyncCount: Int { state.withLock { $0.resyncs } }

    /// For `/metrics`: clients connected, resync notices sent so far, and events held for resuming clients.
    var gaugeReading: (clients: Int, resyncs: Int, held: Int) {
        state.withLock { state in (state.clients.count, state.resyncs, state.clients.values.reduce(0) { $0 + $1.held.count }) }
    }

    /// A new client's stream of the events matching `filter`: those after `resume` (a `Last-Event-ID`) first, read
    /// from the history, then the live ones; from now on when `resume` is nil. `bufferLimit` (bytes) overrides
    /// ``Limits/clientBuffer`` for this client.
    public func subscribe(
        filter: HistoryFilter, after resume: Int64?, bufferLimit: Int? = nil, rewrite: (@Sendable (String) -> String)? = nil
    ) async throws -> EventStreamSubscription {
        try await started()
        let subscription = EventStreamSubscription(bufferLimit: bufferLimit ?? limits.clientBuffer)
        subscription.sendRetry(milliseconds: 2000)
        let key = ObjectIdentifier(subscription)
        subscription.whenFinished { [weak self] in self?.remove(key) }
        let (joinedAt, stopped) = state.withLock { state -> (Int64, Bool) in
            guard !state.stopped else { return (0, true) }
            let cursor = max(resume ?? state.cursor, 0)
            state.clients[key] = LiveClient(filter: filter, subscription: subscription, rewrite: rewrite, cursor: cursor,
                catchingUp: cursor < state.cursor)
            return (state.cursor, false)
        }
        if stopped {
            subscription.close()
        } else if let resume, resume < joinedAt {
            Task { [self] in await catchUp(key, filter: filter, subscription: subscription, rewrite: rewrite, from: resume, to: joinedAt) }
        }
        return subscription
    }

    /// Ends every client's stream and stops watching the history.
    public func stop() {
        let (tasks, clients) = state.withLock { state in
            state.stopped = true
            defer { state.tasks = []; state.clients = [:] }
            return (state.tasks, Array(state.clients.values))
        }
        tasks.forEach { $0.cancel() }
        for client in clients { client.subscription.close() }
    }

    func remove(_ key: ObjectIdentifier) {
        _ = state.withLock { $0.clients.removeValue(forKey: key) }
    }

    // MARK: - Watching the history

    /// Reads where the history stands and starts watching it, once; later callers wait for the first.
    private func started() async throws {
        let start = state.withLock { state in
            if state.start == nil {
                state.start = Task { [self] in try await begin() }
            }
            return state.start!
        }
        do {
            try await start.value
        } catch {
            // A history that could not be read: the next client tries again.
            state.withLock { if $0.start == start { $0.start = nil } }
            throw error
        }
    }

    private func begin() async throws {
        let newest = try await history.latestCursor() ?? 0
        let observer = Task.detached { [weak self, history] in
            // The observation ends when its connection is lost (PostgreSQL stopped or cut off): observed again, with a
            // growing pause, until it holds. A new observation starts with the newest ID, so what was stored meanwhile
            // goes out then.
            var pause = Duration.milliseconds(250)
            while !Task.isCancelled {
                for await last in history.observeNewestEventID() {
                    guard let self, !Task.isCancelled else { return }
                    await self.advance(to: last)
                    pause = .milliseconds(250)
                }
                guard self != nil else { return }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(5))
            }
        }
        let heartbeat = Task.detached { [weak self, limits] in
            while !Task.isCancelled {
                try? await Task.sleep(for: limits.heartbeat)
                guard let self else { return }
                let clients = self.state.withLock { $0.clients.values.map(\.subscription) }
                for client in clients { client.sendComment("keep-alive") }
            }
        }
        state.withLock { state in
            state.cursor = max(state.cursor, newest)
            state.tasks += [observer, heartbeat]
        }
    }

    /// Publishes the events up to `last` (the newest ID after a commit), a batch at a time.
    private func advance(to last: Int64) async {
        while !Task.isCancelled {
            let cursor = state.withLock { state -> Int64? in
                guard state.cursor < last else { return nil }
                // Nobody listens: nothing to read (a client joining later starts from here).
                if state.clients.isEmpty {
                    state.cursor = last
                    return nil
                }
                return state.cursor
            }
            guard let cursor else { return }
            let read: (events: [RawEventRow], reached: Int64)
            do {
                read = try await history.newRawEvents(after: cursor, upTo: last, limit: limits.readBatch)
            } catch {
                logger.warning("live feed: reading new events failed: \(error)")
                try? await Task.sleep(for: .milliseconds(200))
                continue
            }
            let events = read.events.map(LiveEvent.init)
            publish(events, reached: read.reached)
        }
    }

    /// Hands `events` to every client and moves the feed's position to `reached`.
    func publish(_ events: [LiveEvent], reached: Int64) {
        state.withLock { state in
            for key in Array(state.clients.keys) {
                guard var client = state.clients[key] else { continue }
                if client.offer(events, heldLimit: limits.held, retryMilliseconds: limits.resyncRetryMilliseconds) {
                    state.clients[key] = client
                } else {
                    state.clients[key] = nil
                    state.resyncs += 1
                }
            }
            state.cursor = max(state.cursor, reached)
        }
    }
}
