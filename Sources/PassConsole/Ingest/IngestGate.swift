import Locking

/// At most ``width`` ingests parse and store at once; the others wait their turn without holding a thread.
///
/// Measured (Benchmarks/probes/big_bodies.py, 30 concurrent 15 MB ingests): with every ingest parsing at once the
/// console's RSS peaked at ~1 GB, because a parsed batch costs several times its body. The bodies themselves are
/// bounded by the server's body budget; this bounds the parsing. Two at a time keeps both cores busy.
final class IngestGate: Sendable {
    let width: Int
    private struct State {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    init(width: Int = 2) { self.width = max(1, width) }

    /// For `/metrics`: ingests parsing and storing now, and those waiting their turn.
    var depth: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiting.count) } }

    /// Runs `work` once fewer than ``width`` others run.
    func run<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        await enter()
        defer { leave() }
        return try await work()
    }

    private func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                if state.running < width {
                    state.running += 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
