import Foundation
import PassStorage
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fresh, empty folder under the system's temporary folder, deleted with everything in it when released.
///
/// Swift Testing makes a new suite instance for every test, so a suite that stores one gets a new folder per test
/// (as `GRDBTestCase` opens a new database file per test).
final class TemporaryFolder: Sendable {
    /// The folder.
    let url: URL

    /// Creates the folder under `base` (the system's temporary folder by default).
    init(under base: String = NSTemporaryDirectory()) throws {
        var template = Array((base + "/PassStorageTests.XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        url = URL(filePath: String(cString: created), directoryHint: .isDirectory)
    }

    deinit {
        // Tests chmod folders to 0500; give the modes back so the tree can be deleted when not running as root.
        chmod(url.path, 0o700)
        if let paths = FileManager.default.enumerator(atPath: url.path) {
            for case let path as String in paths {
                chmod(url.appendingPathComponent(path).path, 0o700)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }
}

extension TemporaryFolder {
    /// A folder in memory (`/dev/shm`) when there is one, else under the temporary folder: for tests that write
    /// hundreds of times to test locking, not durability. On disk their two `fsync`s per write made every other
    /// test's file work on the concurrency pool's two threads crawl, and tasks elsewhere (a server's answer, a
    /// stream's timeout) waited many seconds.
    static func inMemory() throws -> TemporaryFolder {
        var info = stat()
        let shm = "/dev/shm"
        let usable = stat(shm, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR && access(shm, W_OK) == 0
        return try TemporaryFolder(under: usable ? shm : NSTemporaryDirectory())
    }
}

extension Data {
    /// The UTF-8 bytes of `text`, for readable test data.
    init(_ text: String) {
        self = Data(text.utf8)
    }

    /// The bytes as UTF-8 text, for readable expectations.
    var text: String { String(decoding: self, as: UTF8.self) }
}

/// The permission bits of `url` (`0o600`, `0o700`, …), or `nil` when nothing is there.
func mode(of url: URL) -> mode_t? {
    var info = stat()
    guard lstat(url.path, &info) == 0 else { return nil }
    return info.st_mode & 0o777
}

/// The names in `folder`, sorted; empty when it doesn't exist.
func names(in folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
}

/// Whether the tests run as root, for whom permission bits are not enforced.
let isRoot = geteuid() == 0

/// A value guarded by a lock, for threads in tests to share.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withValue<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// What a test hook throws to simulate the process dying at that point of a write.
let simulatedCrash = StorageError(code: .ioFailure, message: "Simulated crash (test hook).", path: "")
