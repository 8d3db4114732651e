import Locking
@testable import PassConsole
import Testing

/// Concurrent ingests parse and store at most two at a time (their parsed batches cost several times their bodies:
/// 30 at once took the console's RSS to ~1 GB); the rest wait their turn and all complete.
struct IngestGateTests {
    final class Counters: Sendable {
        let state = Mutex((running: 0, most: 0, done: 0))
    }

    @Test func neverMoreThanTheWidthRunAtOnceAndEveryoneGetsATurn() async throws {
        let gate = IngestGate(width: 2)
        let counters = Counters()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await gate.run {
                        counters.state.withLock { $0.running += 1; $0.most = max($0.most, $0.running) }
                        try await Task.sleep(for: .milliseconds(5))
                        counters.state.withLock { $0.running -= 1; $0.done += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        let final = counters.state.withLock { $0 }
        #expect(final.most == 2)
        #expect(final.done == 20)
        #expect(final.running == 0)
    }

    @Test func aFailingIngestHandsItsTurnOn() async throws {
        struct Failure: Error {}
        let gate = IngestGate(width: 1)
        await #expect(throws: Failure.self) { try await gate.run { throw Failure() } }
        #expect(try await gate.run { 42 } == 42)
    }
}
