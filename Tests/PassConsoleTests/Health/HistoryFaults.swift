import AccessEnabler
import Foundation
import GRDB
import Testing
@testable import PassHistory

/// Real faults of the console's history file for the health tests. The tests may run as root, where `chmod 0444`
/// stops no write, and mounting a small tmpfs is not for a test to do: SQLite's own limits on the writer connection
/// give the errors a read-only file (`PRAGMA query_only`: SQLITE_READONLY) and a full disk (`PRAGMA max_page_count`:
/// SQLITE_FULL) give; damage is garbage written over pages in the middle of the file.
enum HistoryFaults {
    static func readOnly(_ history: HistoryDatabase, _ on: Bool) async throws {
        try await history.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA query_only = \(on ? 1 : 0)") }
    }

    static func diskFull(_ history: HistoryDatabase, _ on: Bool) async throws {
        try await history.writer.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 1
            try db.execute(sql: "PRAGMA max_page_count = \(on ? pages : 1_073_741_823)")
        }
    }

    /// Moves the WAL into the file and overwrites `count` pages in its middle with random bytes.
    static func damage(_ history: HistoryDatabase, count: Int = 8) async throws {
        // A truncating checkpoint waits for no reader; one may be running (the console's own health check, the live
        // feed), which SQLite answers with SQLITE_BUSY: try again until the WAL is folded into the file.
        for attempt in 1...100 {
            do {
                try await history.writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
                break
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && attempt < 100 {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        try damageFile(try #require(history.path), count: count)
    }

    static func damageFile(_ path: String, count: Int = 8, pageSize: Int = 4096) throws {
        let handle = try FileHandle(forUpdating: URL(filePath: path))
        defer { try? handle.close() }
        let pages = Int(try handle.seekToEnd()) / pageSize
        precondition(pages >= 3 * count, "the file is too small to damage its middle (\(pages) pages)")
        for page in pages / 3..<pages / 3 + count {
            try handle.seek(toOffset: UInt64(page * pageSize))
            handle.write(Data((0..<pageSize).map { _ in UInt8.random(in: 0...255) }))
        }
        try handle.synchronize()
    }

    /// A history file at `path` with `count` events of one session, closed.
    static func filledFile(_ path: String, count: Int = 3000, session: UUID = UUID()) async throws {
        let history = try HistoryDatabase(path: path)
        try await history.append(events(count, session: session))
        try history.close()
    }

    static func events(_ count: Int, session: UUID = UUID(), start: Int = 0) -> [EntitlementEvent] {
        let app = AppIdentity(bundleID: "com.health.test", teamID: "HEALTH1")
        return (start..<start + count).map { i in
            EntitlementEvent(sequence: i, timestamp: Date(), sessionID: session, deviceID: "d", app: app, requestorID: "REF30",
                mvpdID: nil, kind: .error(code: "E\(i)", message: String(repeating: "m", count: 200)))
        }
    }
}
