import Foundation
import Locking
import MicroHTTP

/// Sends each published event to every connected client: the smallest owner of many ``EventStreamSubscription``s,
/// for the server's Server-Sent Events tests (several clients, one slow, one gone, shutdown). The console's own owner
/// is `LiveFeed`.
final class TestBroadcast: Sendable {
    private struct State {
        var nextID: UInt64 = 1
        var subscribers: [ObjectIdentifier: EventStreamSubscription] = [:]
    }

    private let state = Mutex(State())
    private let clientBufferLimit: Int
    private let heartbeatTask = Mutex<Task<Void, Never>?>(nil)

    /// - Parameters:
    ///   - heartbeat: how often a keep-alive comment goes out (how a vanished client is found).
    ///   - clientBufferLimit: bytes a client may have queued before it is cut off.
    init(heartbeat: Duration = .seconds(15), clientBufferLimit: Int = 1 << 20) {
        self.clientBufferLimit = clientBufferLimit
        let task = Task.detached { [weak self, heartbeat] in
            while !Task.isCancelled {
                try? await Task.sleep(for: heartbeat)
                guard let self else { return }
                for subscriber in self.state.withLock({ Array($0.subscribers.values) }) { subscriber.sendComment("keep-alive") }
            }
        }
        heartbeatTask.withLock { $0 = task }
    }

    deinit { heartbeatTask.withLock { $0?.cancel() } }

    /// Clients connected now.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Sends an event to every client.
    func publish(event: String? = nil, data: String) {
        let (event, subscribers) = state.withLock { state in
            defer { state.nextID += 1 }
            return (ServerSentEvent(id: state.nextID, event: event, data: data), Array(state.subscribers.values))
        }
        let bytes = event.encoded
        for subscriber in subscribers { subscriber.send(encoded: bytes) }
    }

    /// The streaming answer for a request: a new subscription, removed when its client goes.
    func response(for request: Request) -> Response {
        let subscription = EventStreamSubscription(bufferLimit: clientBufferLimit)
        state.withLock { $0.subscribers[ObjectIdentifier(subscription)] = subscription }
        subscription.whenFinished { [weak self] in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: ObjectIdentifier(subscription)) }
        }
        subscription.sendRetry(milliseconds: 2000)
        return .eventStream(subscription)
    }
}
