import Foundation
import Locking

/// Fans events out to any number of `AsyncStream` subscribers and keeps the last events for late subscribers.
///
/// Events come in as the engine made them and leave redacted (``EntitlementEvent/redacted()``: tokens and secrets
/// cut short): redacting when an event is handed out, not when it is published, spares an app with no console
/// attached the work on every call.
///
/// The last `keep` events are kept in a buffer trimmed in batches: up to twice as many are held, then the oldest
/// half goes in one move. Dropping the oldest event on every publish once the buffer was full shifted the whole
/// buffer each time (~1000 events), which was most of a warm getAuthorization's own cost in a long-running app.
final class EventBroadcaster: Sendable {
    private struct State {
        var subscribers: [UUID: AsyncStream<EntitlementEvent>.Continuation] = [:]
        var recent: [EntitlementEvent] = []
    }
    private let state = Mutex(State())
    private let keep: Int

    init(keep: Int = 1000) { self.keep = keep }

    func publish(_ event: EntitlementEvent) {
        let subscribers = state.withLock { state in
            state.recent.append(event)
            if state.recent.count >= 2 * keep { state.recent.removeFirst(state.recent.count - keep) }
            return Array(state.subscribers.values)
        }
        guard !subscribers.isEmpty else { return }
        let redacted = event.redacted()
        for subscriber in subscribers { subscriber.yield(redacted) }
    }

    /// A stream of events from now on (with `replay`, the recent ones first).
    func subscribe(replay: Bool) -> AsyncStream<EntitlementEvent> {
        let (stream, continuation) = AsyncStream<EntitlementEvent>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        let id = UUID()
        let recent = state.withLock { state in
            state.subscribers[id] = continuation
            return replay ? Array(state.recent.suffix(keep)) : []
        }
        for event in recent { continuation.yield(event.redacted()) }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// The last `keep` events, oldest first.
    var recent: [EntitlementEvent] { state.withLock { Array($0.recent.suffix(keep)) }.map { $0.redacted() } }

    func finish() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
