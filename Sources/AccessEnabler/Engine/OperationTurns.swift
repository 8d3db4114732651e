/// The order of the engine's operations: each takes a ticket when it is enqueued and runs when every ticket before
/// it has finished. Waiting operations and `settle` callers are resumed as turns pass. Only the engine (an actor)
/// touches it.
struct OperationTurns {
    private var issued = 0
    private var finished = 0
    private var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    mutating func take() -> Int {
        issued += 1
        return issued
    }

    /// Whether the operation with `ticket` may run now.
    func isNext(_ ticket: Int) -> Bool { ticket == finished + 1 }

    /// Whether every operation enqueued so far has finished.
    var isIdle: Bool { finished == issued }

    mutating func wait(_ ticket: Int, _ continuation: CheckedContinuation<Void, Never>) {
        waiting[ticket] = continuation
    }

    mutating func waitForIdle(_ continuation: CheckedContinuation<Void, Never>) {
        idleWaiters.append(continuation)
    }

    /// Marks `ticket` finished and lets the next operation (or, when none is left, the `settle` callers) go on.
    mutating func finish(_ ticket: Int) {
        finished = ticket
        if let next = waiting.removeValue(forKey: ticket + 1) {
            next.resume()
        } else if isIdle {
            let idle = idleWaiters
            idleWaiters = []
            for waiter in idle { waiter.resume() }
        }
    }
}
