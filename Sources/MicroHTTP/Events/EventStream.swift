import Foundation
import Locking

/// A broadcast channel of Server-Sent Events with many concurrent subscribers.
///
/// Publishing never blocks: each subscriber has its own bounded buffer, and a subscriber that falls further behind
/// than ``clientBufferLimit`` is disconnected (it can reconnect and resume with `Last-Event-ID`). A comment line
/// is sent to every subscriber each ``heartbeat`` so proxies keep the stream open and vanished clients are found
/// and removed. The last ``historyLimit`` events are kept for resume.
///
/// ```swift
/// let stream = EventStream()
/// router.get("/events", inline: { request in stream.response(for: request) })
/// stream.publish(event: "flow", data: #"{"state":"picker"}"#)
/// ```
public final class EventStream: Sendable {
    /// How often a keep-alive comment is sent.
    public let heartbeat: Duration
    /// Bytes a subscriber may have queued before it is cut off.
    public let clientBufferLimit: Int
    /// Events kept for `Last-Event-ID` resume.
    public let historyLimit: Int

    private struct State {
        var nextID: UInt64 = 1
        var history: [ServerSentEvent] = []
        var subscribers: [ObjectIdentifier: EventStreamSubscription] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    private let heartbeatTask = Mutex<Task<Void, Never>?>(nil)

    /// Creates a stream.
    public init(heartbeat: Duration = .seconds(15), clientBufferLimit: Int = 1 << 20, historyLimit: Int = 1024) {
        self.heartbeat = heartbeat
        self.clientBufferLimit = clientBufferLimit
        self.historyLimit = historyLimit
        let task = Task.detached { [weak self, heartbeat] in
            while !Task.isCancelled {
                try? await Task.sleep(for: heartbeat)
                guard let self else { return }
                self.sendHeartbeat()
            }
        }
        heartbeatTask.withLock { $0 = task }
    }

    deinit { heartbeatTask.withLock { $0?.cancel() } }

    /// Subscribers currently connected.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// The ID the next published event will get.
    public var nextEventID: UInt64 { state.withLock { $0.nextID } }

    /// Sends an event to every subscriber and keeps it for resume; returns its ID.
    @discardableResult
    public func publish(event: String? = nil, data: String) -> UInt64 {
        let (event, subscribers) = state.withLock { state -> (ServerSentEvent, [EventStreamSubscription]) in
            let event = ServerSentEvent(id: state.nextID, event: event, data: data)
            state.nextID += 1
            state.history.append(event)
            if state.history.count > historyLimit { state.history.removeFirst(state.history.count - historyLimit) }
            return (event, Array(state.subscribers.values))
        }
        let bytes = event.encoded
        for subscriber in subscribers { subscriber.enqueue(bytes) }
        return event.id!
    }

    /// A new subscription that first replays the kept events after `lastEventID` (none when `nil`).
    public func subscribe(lastEventID: String? = nil) -> EventStreamSubscription {
        let subscription = EventStreamSubscription(limit: clientBufferLimit)
        let replay = state.withLock { state -> [ServerSentEvent]? in
            guard !state.closed else { return nil }
            state.subscribers[ObjectIdentifier(subscription)] = subscription
            guard let lastEventID, let last = UInt64(lastEventID.trimmingCharacters(in: .whitespaces)) else {
                return []
            }
            return state.history.filter { $0.id! > last }
        }
        guard let replay else {
            subscription.close()
            return subscription
        }
        subscription.onFinish = { [weak self] in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: ObjectIdentifier(subscription)) }
        }
        var opening = Data("retry: 2000\n\n".utf8)
        for event in replay { opening.append(event.encoded) }
        subscription.enqueue(opening)
        return subscription
    }

    /// The streaming answer for a request, resuming from its `Last-Event-ID` header or `lastEventId` query.
    public func response(for request: Request) -> Response {
        let subscription = subscribe(lastEventID: request.header("Last-Event-ID") ?? request.query("lastEventId"))
        return Response(
            headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"),
                      ("X-Accel-Buffering", "no")],
            body: .eventStream(subscription))
    }

    /// Ends every subscription and refuses new ones (used on server shutdown).
    public func closeAll() {
        let subscribers = state.withLock { state in
            state.closed = true
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.close() }
    }

    private func sendHeartbeat() {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        let comment = Data(": keep-alive\n\n".utf8)
        for subscriber in subscribers { subscriber.enqueue(comment) }
    }
}
