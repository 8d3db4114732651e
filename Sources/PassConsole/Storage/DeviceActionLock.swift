import Foundation
import MicroHTTP
import PassHistory

/// One storage action at a time per device folder, across threads, processes and consoles: an action (clear, import,
/// undo) reads the storage, saves a backup, writes, and audits, and two interleaved actions would leave backups whose
/// "before" is not the state before their own change (an undo would restore the wrong state).
///
/// Held for the whole action:
/// - a `flock` on `<device folder>/.passconsole-actions.lock`: every console and request on this machine (the SDK's own
///   per-file lock only covers a single write);
/// - then the history's exclusive lock for the folder (``EventHistory/withExclusiveLock(_:_:)``): on PostgreSQL an
///   advisory lock, so consoles on other machines sharing the folder and the database wait too. SQLite has one console
///   per history: the file lock is what serialises.
///
/// Folders are locked in the order of their paths, so two actions over several folders cannot deadlock.
enum DeviceActionLock {
    /// The lock file's name in a device folder.
    static let fileName = ".passconsole-actions.lock"

    /// Runs `body` holding the action lock of every folder in `roots`.
    static func run<T: Sendable>(_ roots: [URL], history: any EventHistory, _ body: @escaping @Sendable () async throws -> T)
        async throws -> T
    {
        let paths = Set(roots.map { $0.standardizedFileURL.resolvingSymlinksInPath().path }).sorted()
        return try await run(paths[...], history: history, body)
    }

    private static func run<T: Sendable>(_ paths: ArraySlice<String>, history: any EventHistory,
        _ body: @escaping @Sendable () async throws -> T) async throws -> T
    {
        guard let path = paths.first else { return try await body() }
        let rest = paths.dropFirst()
        let descriptor = try await lockFile(in: path)
        defer { close(descriptor) }  // closing the descriptor releases the flock
        return try await history.withExclusiveLock("passconsole device folder " + path) {
            try await run(rest, history: history, body)
        }
    }

    /// Opens and `flock`s the folder's lock file, waiting (without blocking a thread) while another holds it.
    private static func lockFile(in folder: String) async throws -> Int32 {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/" + fileName
        let descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw HTTPError(.internalServerError, code: "storage_lock_failed",
                message: "Could not open the device folder's action lock \(file).", detail: String(cString: strerror(errno)))
        }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw HTTPError(.internalServerError, code: "storage_lock_failed",
                    message: "Could not lock the device folder's action lock \(file).", detail: reason)
            }
            do { try await Task.sleep(for: .milliseconds(5)) } catch {
                close(descriptor)
                throw error
            }
        }
        return descriptor
    }
}
