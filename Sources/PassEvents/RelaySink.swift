import Locking

/// A sink whose destination is set later: a backend starts before the console that records its exchanges exists.
/// Until then it keeps the newest ``capacity`` events and hands them over, in order, when attached.
public final class RelaySink: EventSink {
    public let capacity: Int
    private struct State {
        var target: (any EventSink)?
        var waiting: [EntitlementEvent] = []
        var dropped = 0
    }
    private let state = Mutex(State())

    public init(capacity: Int = 10_000) { self.capacity = max(1, capacity) }

    /// Events dropped while nothing was attached and more than ``capacity`` waited.
    public var droppedCount: Int { state.withLock { $0.dropped } }

    public func emit(_ event: EntitlementEvent) {
        let target = state.withLock { state -> (any EventSink)? in
            guard let target = state.target else {
                state.waiting.append(event)
                if state.waiting.count > capacity {
                    state.waiting.removeFirst()
                    state.dropped += 1
                }
                return nil
            }
            return target
        }
        target?.emit(event)
    }

    /// From now on events go to `target`; the waiting ones first.
    public func attach(_ target: any EventSink) {
        let waiting = state.withLock { state -> [EntitlementEvent] in
            state.target = target
            defer { state.waiting = [] }
            return state.waiting
        }
        for event in waiting { target.emit(event) }
    }
}
