import Foundation

/// Runs blocking socket work (connects, sends of megabytes) on a thread of its own: blocking one of the concurrency
/// pool's few threads (two on a 2-core machine) stalls every other test's tasks for as long.
public enum BlockingWork {
    /// Runs `work` on a new thread and returns (or throws) what it did, without holding a concurrency thread.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
