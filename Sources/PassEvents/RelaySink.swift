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

    public func lost(_ count: Int) {
        let target = state.withLock { state -> (any EventSink)? in
            if state.target == nil { state.dropped += count }
            return state.target
        }
        target?.lost(count)
    }

    /// From now on events go to `target`; the waiting ones first, and the count of those dropped meanwhile.
    public func attach(_ target: any EventSink) {
        let (waiting, dropped) = state.withLock { state -> ([EntitlementEvent], Int) in
            state.target = target
            defer { state.waiting = [] }
            return (state.waiting, state.dropped)
        }
        if dropped > 0 { target.lost(dropped) }
        for event in waiting { target.emit(event) }
    }
}
