import Foundation

/// What the sender waits for while it does not send.
enum PauseKind: Sendable {
    /// Nothing is queued: until an event comes.
    case idle
    /// The first event after a quiet spell: ``ConsoleReporter/Configuration/interval`` for others to join its batch.
    case gathering
    /// After a failed try, until the back-off ends (or a flush or finish cuts it short).
    case backingOff
}

/// The sender's pause: resumed once, by whoever takes it from the state first (its timer, a new event, a flush).
struct Pause: Sendable {
    var continuation: CheckedContinuation<Void, Never>
    var number: Int
    var kind: PauseKind
}

extension ConsoleReporter.State {
    /// Takes the sender's pause when it is of one of `kinds` (the caller resumes it outside the lock).
    mutating func takePause(of kinds: Set<PauseKind>) -> Pause? {
        guard let pause, kinds.contains(pause.kind) else { return nil }
        self.pause = nil
        return pause
    }
}

extension ConsoleReporter {
    private enum Step {
        case stop
        case idle
        case gather
        case send([QueuedEvent], lost: Int)
    }

    /// The sender: one request at a time, for the reporter's whole life (until ``finish(timeout:)``).
    func run() async {
        var gathered = false
        while true {
            let (step, flushed) = locked { state -> (Step, [CheckedContinuation<Bool, Never>]) in
                if state.queue.isEmpty {
                    defer { state.flushWaiters = [] }
                    return (state.finishDeadline == nil ? .idle : .stop, state.flushWaiters)
                }
                if let deadline = state.finishDeadline, ProcessInfo.processInfo.systemUptime >= deadline { return (.stop, []) }
                let urgent = !state.flushWaiters.isEmpty || state.finishDeadline != nil
                if !gathered, !urgent, state.queue.count < state.batchLimit, configuration.interval > 0 { return (.gather, []) }
                return (.send(state.queue.oldest(state.batchLimit), lost: state.queue.unreported), [])
            }
            for waiter in flushed { waiter.resume(returning: true) }
            switch step {
            case .stop:
                stop()
                return
            case .idle:
                gathered = false
                await pause(.idle, seconds: nil)
            case .gather:
                gathered = true
                await pause(.gathering, seconds: configuration.interval)
            case .send(let batch, let lost):
                gathered = true
                let outcome = await client.send(batch.map(\.line), lost: lost)
                if let wait = handle(outcome, of: batch, lost: lost) { await pause(.backingOff, seconds: wait) }
            }
        }
    }

    /// Books what became of a request; returns how long to wait before the next one (nil: go on at once).
    private func handle(_ outcome: IngestClient.Outcome, of batch: [QueuedEvent], lost: Int) -> TimeInterval? {
        let (wait, failed) = locked { state -> (TimeInterval?, [CheckedContinuation<Bool, Never>]) in
            switch outcome {
            case .accepted(let stored, let duplicates, let unreadable):
                state.queue.delivered(batch, reported: min(lost, IngestClient.reportedLimit), unreadable: unreadable)
                state.sent += min(stored + duplicates, batch.count)
                state.failures = 0
                state.refusals = 0
                state.lastError = unreadable > 0 ? "the console could not read \(unreadable) of \(batch.count) events" : nil
                if unreadable > 0 { state.lastRefusal = state.lastError }
                return (nil, [])
            case .retry(let reason, let retryAfter):
                return (failure(reason, retryAfter: retryAfter, in: &state), takeFlushWaiters(&state))
            case .tooLarge(let reason) where batch.count > 1:
                state.batchLimit = max(1, batch.count / 2)
                state.lastError = reason
                return (nil, [])
            case .tooLarge(let reason), .refused(_, let reason):
                state.refusals += 1
                guard state.refusals >= configuration.retry.refusedAttempts else {
                    return (failure(reason, retryAfter: nil, in: &state), takeFlushWaiters(&state))
                }
                setAside(batch, reason: reason, in: &state)
                return (nil, [])
            }
        }
        for waiter in failed { waiter.resume(returning: false) }
        return wait
    }

    /// A failed try: counted, said in ``lastError``; returns the back-off.
    private func failure(_ reason: String, retryAfter: TimeInterval?, in state: inout State) -> TimeInterval {
        state.failures += 1
        state.lastError = reason
        return configuration.retry.delay(afterFailures: state.failures, random: Double.random(in: 0..<1), retryAfter: retryAfter)
    }

    /// The console refused `batch` for good: its events leave the queue, counted as refused, and a note in the
    /// session says so (the next request also reports them in `X-PassConsole-Dropped`). A refused note is not noted.
    private func setAside(_ batch: [QueuedEvent], reason: String, in state: inout State) {
        state.refusals = 0
        state.failures = 0
        state.queue.refuse(batch)
        state.lastError = "\(reason); \(batch.count) events set aside"
        state.lastRefusal = state.lastError
        guard batch.contains(where: { !$0.isNote }) else { return }
        append(WireEvent.error(code: "reporter.refused",
            message: "The console refused \(batch.count) events of this session (\(reason)): they are not in the history."),
            note: true, to: &state)
    }

    private func takeFlushWaiters(_ state: inout State) -> [CheckedContinuation<Bool, Never>] {
        defer { state.flushWaiters = [] }
        return state.flushWaiters
    }

    /// Waits until the pause is taken: by its timer after `seconds` (nil: none), or by whoever the kind lets wake it.
    /// Returns at once when what it would wait for is already there. Once finishing, no wait outlasts the deadline.
    private func pause(_ kind: PauseKind, seconds: TimeInterval?) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let timer = locked { state -> (number: Int, seconds: TimeInterval?)? in
                let finishing = state.finishDeadline != nil
                switch kind {
                case .idle where !state.queue.isEmpty || finishing: return nil
                case .gathering where !state.flushWaiters.isEmpty || finishing || state.queue.count >= state.batchLimit: return nil
                case .backingOff where !state.flushWaiters.isEmpty: return nil
                default: break
                }
                state.pauseCount += 1
                state.pause = Pause(continuation: continuation, number: state.pauseCount, kind: kind)
                var wait = seconds
                if let deadline = state.finishDeadline {
                    wait = max(0, min(wait ?? .infinity, deadline - ProcessInfo.processInfo.systemUptime))
                }
                return (state.pauseCount, wait)
            }
            guard let timer else {
                continuation.resume()
                return
            }
            guard let seconds = timer.seconds else { return }
            Task.detached { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(max(0, min(seconds, 86_400)) * 1_000_000_000))
                self?.endPause(number: timer.number)
            }
        }
    }

    /// The timer's end of pause `number`, unless someone took it first.
    private func endPause(number: Int) {
        let pause = locked { state -> Pause? in
            guard state.pause?.number == number else { return nil }
            defer { state.pause = nil }
            return state.pause
        }
        pause?.continuation.resume()
    }

    /// The sender ends: waiting flushes learn whether the queue emptied, ``finish(timeout:)`` returns.
    private func stop() {
        let (flushes, finishes, empty) = locked { state in
            state.stopped = true
            defer {
                state.flushWaiters = []
                state.finishWaiters = []
            }
            return (state.flushWaiters, state.finishWaiters, state.queue.isEmpty)
        }
        for waiter in flushes { waiter.resume(returning: empty) }
        for waiter in finishes { waiter.resume() }
    }
}
