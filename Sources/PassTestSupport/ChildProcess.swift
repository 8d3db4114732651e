import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`, for tests that run `passconsole`, chromedriver or a shell.
///
/// Not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` to find descriptors to close and copies
/// each entry's whole 256-byte `d_name`, reading past glibc's buffer; when that buffer ends a page, the test process
/// dies with SIGSEGV (swift-corelibs-foundation PR #5472, seen about once in ten `make test` runs here). This type
/// spawns directly, closes every descriptor above 2 in the child (`closefrom`), and reaps the child on a thread of
/// its own.
///
/// ```swift
/// let child = try ChildProcess("/bin/sh", ["-c", "exit 3"])
/// #expect(child.waitUntilExit() == 3)
/// ```
public final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A file, created or truncated.
        case file(URL)
        /// The test process's own stream.
        case inherit
    }

    /// Why a child could not be started.
    public struct LaunchError: Error, CustomStringConvertible {
        /// What could not be started, and why.
        public let description: String
    }

    /// The child's process ID.
    public let pid: pid_t
    private let status = Mutex<Int32?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: The child's whole environment; `nil` passes the test process's own.
    ///   - directory: The child's working directory; `nil` keeps the test process's.
    /// - Throws: ``LaunchError`` naming the executable and the system's reason.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil,
        stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .inherit: break
            case .null:
                posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let url):
                posix_spawn_file_actions_addopen(
                    &actions, fd, url.path(percentEncoded: false), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            }
        }
        if let directory {
            guard let addChdir = GNUSpawn.addChdir else { throw LaunchError(description: "this libc cannot set a child's folder") }
            _ = addChdir(&actions, directory.path(percentEncoded: false))
        }
        guard let addClosefrom = GNUSpawn.addClosefrom else { throw LaunchError(description: "this libc lacks closefrom for posix_spawn") }
        _ = addClosefrom(&actions, 3)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environ = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            for pointer in argv { free(pointer) }
            for pointer in environ ?? [] { free(pointer) }
        }
        var pid: pid_t = 0
        let result = environ.map { posix_spawn(&pid, executable, &actions, nil, argv, $0) }
            ?? posix_spawn(&pid, executable, &actions, nil, argv, Glibc.environ)
        guard result == 0 else {
            throw LaunchError(description: "could not start \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        let reaper = Thread { [self] in
            var raw: Int32 = 0
            while waitpid(self.pid, &raw, 0) < 0, errno == EINTR {}
            // Exit code when it exited; 128 + signal when a signal ended it, as a shell reports it.
            let code = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            self.status.withLock { $0 = code }
            self.done.signal()
        }
        reaper.name = "reap \(pid)"
        reaper.start()
    }

    /// True until the child has exited and been reaped.
    public var isRunning: Bool { status.withLock { $0 == nil } }

    /// The exit code (128 + signal number when a signal ended it); `nil` while running.
    public var exitCode: Int32? { status.withLock { $0 } }

    /// Sends `signal` (SIGTERM by default) unless the child has already been reaped.
    public func terminate(_ signal: Int32 = SIGTERM) {
        status.withLock { code in
            if code == nil { _ = kill(pid, signal) }
        }
    }

    /// Blocks until the child exits; returns its exit code.
    @discardableResult
    public func waitUntilExit() -> Int32 {
        if let code = exitCode { return code }
        done.wait()
        done.signal()
        return exitCode!
    }

    /// Suspends until the child exits (the wait runs off the cooperative pool); returns its exit code.
    @discardableResult
    public func exited() async -> Int32 {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.waitUntilExit()) }
        }
    }
}

/// glibc's GNU extensions to posix_spawn (2.29 and 2.34), which Swift's Glibc module does not import.
private enum GNUSpawn {
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    static let addChdir = symbol("posix_spawn_file_actions_addchdir_np", as: AddChdir.self)
    static let addClosefrom = symbol("posix_spawn_file_actions_addclosefrom_np", as: AddClosefrom.self)

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
    }
}
