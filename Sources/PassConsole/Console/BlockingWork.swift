import Dispatch

/// Runs work that blocks its thread (waiting for the apps' storage writers to land) on a queue of its own, so
/// that the Swift concurrency pool, which has one thread per core, never waits on it: with every pool thread
/// blocked, nothing that would release them can run, and the whole process stops answering.
enum BlockingWork {
    private static let queue = DispatchQueue(label: "passconsole.blocking-work", qos: .userInitiated, attributes: .concurrent)

    /// Runs `work` on the blocking-work queue and returns its result.
    static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }
}
