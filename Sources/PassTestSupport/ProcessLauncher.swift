import Foundation

/// Starts child processes one at a time.
///
/// swift-corelibs-foundation's `Process.run()` is not safe to call from several threads at once (it crashed in
/// `memmove` while copying the launch arguments when tests of two suites started processes together), so every test
/// that launches a process goes through this lock.
public enum ProcessLauncher {
    private static let lock = NSLock()

    /// `process.run()`, serialized with every other launch in this test process.
    public static func run(_ process: Process) throws {
        lock.lock()
        defer { lock.unlock() }
        try process.run()
    }
}
