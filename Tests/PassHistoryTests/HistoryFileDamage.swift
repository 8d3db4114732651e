import Foundation
import GRDB
@testable import PassHistory

/// Real damage and real SQLite limits for the health tests: pages overwritten with garbage in the middle of the
/// file, and a writer connection made read-only (`PRAGMA query_only`) or out of room (`PRAGMA max_page_count`). The
/// tests may run as root, where `chmod 0444` stops no write, and mounting a small tmpfs is not for a test to do:
/// these produce SQLite's own SQLITE_READONLY and SQLITE_FULL on the connection that writes.
enum HistoryFileDamage {
    /// Overwrites `count` pages (of `pageSize` bytes) in the middle third of the file with random bytes, starting at
    /// a page chosen with `seed`. Returns the pages hit.
    @discardableResult
    static func overwriteMiddlePages(of path: String, count: Int = 8, pageSize: Int = 4096, seed: Int = 0) throws -> [Int] {
        let handle = try FileHandle(forUpdating: URL(filePath: path))
        defer { try? handle.close() }
        let pages = Int(try handle.seekToEnd()) / pageSize
        precondition(pages >= 9, "the file is too small to damage its middle (\(pages) pages)")
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

    /// Moves everything from the WAL into the database file, so damage to the file is what readers see.
    static func checkpoint(_ history: HistoryDatabase) async throws {
        try await history.writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    /// Writes on the history's writer connection fail with SQLITE_READONLY while `on` (what a file SQLite could only
    /// open read-only does).
    static func readOnly(_ history: HistoryDatabase, _ on: Bool) async throws {
        try await history.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA query_only = \(on ? 1 : 0)") }
    }

    /// Writes that need a new page fail with SQLITE_FULL while `on` (the file may not grow past its current size).
    static func diskFull(_ history: HistoryDatabase, _ on: Bool) async throws {
        try await history.writer.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 1
            try db.execute(sql: "PRAGMA max_page_count = \(on ? pages : 1_073_741_823)")
        }
    }

    /// The permission bits of `path` (`nil` when missing).
    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? nil
    }
}

/// Runs `body` with the process's umask set to `mask`, restoring it afterwards.
func withUmask<T>(_ mask: mode_t, _ body: () async throws -> T) async rethrows -> T {
    let previous = umask(mask)
    defer { umask(previous) }
    return try await body()
}
