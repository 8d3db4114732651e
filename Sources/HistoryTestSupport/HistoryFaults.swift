import AccessEnabler
import Foundation
import GRDB
import PassHistory

/// Real faults of a history file, for the health tests of the history and the console (one copy for both).
///
/// The tests may run as root, where `chmod 0444` stops no write, and mounting a small tmpfs is not for a test to do:
/// SQLite's own limits on the writer connection give the errors a read-only file (`PRAGMA query_only`:
/// SQLITE_READONLY) and a full disk (`PRAGMA max_page_count`: SQLITE_FULL) give; damage is random bytes written over
/// pages in the middle of the file.
public enum HistoryFaults {
    /// The file has too few pages to damage its middle without touching its header.
    public struct TooSmall: Error, CustomStringConvertible {
        /// The file's size in pages.
        public let pages: Int
        /// The reason in words.
        public var description: String { "the file is too small to damage its middle (\(pages) pages)" }
    }

    /// Writes on the history's writer connection fail with SQLITE_READONLY while `on`.
    public static func readOnly(_ history: HistoryDatabase, _ on: Bool) async throws {
        try await history.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA query_only = \(on ? 1 : 0)") }
    }

    /// Writes that need a new page fail with SQLITE_FULL while `on` (the file may not grow past its current size).
    public static func diskFull(_ history: HistoryDatabase, _ on: Bool) async throws {
        try await history.writer.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 1
            try db.execute(sql: "PRAGMA max_page_count = \(on ? pages : 1_073_741_823)")
        }
    }

    /// Moves everything from the WAL into the database file, so damage to the file is what readers see. A truncating
    /// checkpoint waits for no reader; one may be running (the console's health check, the live feed), which SQLite
    /// answers with SQLITE_BUSY: tried again until the WAL is folded in.
    public static func checkpoint(_ history: HistoryDatabase) async throws {
        for attempt in 1...100 {
            do {
                try await history.writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
                return
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && attempt < 100 {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Checkpoints the open `history`, then damages `count` pages in the middle of its file.
    public static func damage(_ history: HistoryDatabase, count: Int = 8) async throws {
        try await checkpoint(history)
        guard let path = history.path else { return }
        try overwriteMiddlePages(of: path, count: count)
    }

    /// Overwrites `count` pages (of `pageSize` bytes) in the middle third of the file with random bytes, starting at
    /// a page chosen with `seed`. Returns the pages hit.
    @discardableResult
    public static func overwriteMiddlePages(of path: String, count: Int = 8, pageSize: Int = 4096, seed: Int = 0) throws -> [Int] {
        let handle = try FileHandle(forUpdating: URL(filePath: path))
        defer { try? handle.close() }
        let pages = Int(try handle.seekToEnd()) / pageSize
        guard pages >= max(9, 3 * count) else { throw TooSmall(pages: pages) }
        let span = max(1, pages / 3 - count)
        let first = pages / 3 + (seed * 7919) % span
        let hit = Array(first..<min(first + count, pages - 1))
        var generator = SystemRandomNumberGenerator()
        for page in hit {
            try handle.seek(toOffset: UInt64(page * pageSize))
            handle.write(Data((0..<pageSize).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        }
        try handle.synchronize()
        return hit
    }

    /// A history file at `path` with `count` events of one session, closed.
    public static func filledFile(_ path: String, count: Int = 3000, session: UUID = UUID()) async throws {
        let history = try HistoryDatabase(path: path)
        try await history.append(events(count, session: session))
        try history.close()
    }

    /// `count` error events of one session, 200-character messages (enough to fill pages quickly).
    public static func events(_ count: Int, session: UUID = UUID(), start: Int = 0) -> [EntitlementEvent] {
        let app = AppIdentity(bundleID: "com.health.test", teamID: "HEALTH1")
        return (start..<start + count).map { i in
            EntitlementEvent(sequence: i, timestamp: Date(), sessionID: session, deviceID: "d", app: app, requestorID: "REF30",
                mvpdID: nil, kind: .error(code: "E\(i)", message: String(repeating: "m", count: 200)))
        }
    }

    /// The permission bits of `path` (`nil` when missing).
    public static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? nil
    }
}

/// Runs `body` with the process's umask set to `mask`, restoring it afterwards.
public func withUmask<T>(_ mask: mode_t, _ body: () async throws -> T) async rethrows -> T {
    let previous = umask(mask)
    defer { umask(previous) }
    return try await body()
}
