import HistoryTestSupport
import AccessEnabler
import Foundation
import GRDB
import Testing
@testable import PassHistory

/// The history at rest and when it breaks: its files readable by their owner only, damage found by `quick_check`
/// (at open and later), a damaged file refused with what to do or moved aside, and SQLite's failures named.
@Suite("History health")
struct HistoryHealthTests {
    /// A history file of a few hundred pages, closed (its WAL checkpointed into it).
    static func filledHistory(at path: String, events: Int = 3000) async throws {
        let history = try HistoryDatabase(path: path)
        var factory = EventFactory()
        try await history.append((0..<events).map { factory.make(.error(code: "E\($0)", message: String(repeating: "x", count: 200))) })
        try history.close()
    }

    @Test("the history file, its WAL and SHM, are created 0600 with umask 022")
    func filesAreOwnerOnly() async throws {
        let directory = try TemporaryDirectory()
        try await withUmask(0o022) {
            let history = try HistoryDatabase(path: directory.historyPath)
            var factory = EventFactory()
            try await history.append(factory.flow())
            try await history.saveBackup(StorageBackup(reason: "test", documents: [.init(domain: "d", path: "p", contents: Data("token".utf8))]))
            for suffix in ["", "-wal", "-shm"] {
                #expect(HistoryFaults.mode(directory.historyPath + suffix) == 0o600, "history.sqlite\(suffix)")
            }
            try history.close()
        }
    }

    @Test("a world-readable history, WAL and SHM left by an older build are narrowed to 0600 when opened")
    func existingFilesAreNarrowed() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.historyPath
        let history = try HistoryDatabase(path: path)
        var factory = EventFactory()
        try await history.append(factory.flow())
        for suffix in ["", "-wal", "-shm"] { #expect(chmod(path + suffix, 0o644) == 0) }
        #expect(HistoryFaults.mode(path) == 0o644)
        let again = try HistoryDatabase(path: path)
        for suffix in ["", "-wal", "-shm"] { #expect(HistoryFaults.mode(path + suffix) == 0o600, "history.sqlite\(suffix)") }
        #expect(try await again.eventCount == 8)
        withExtendedLifetime(history) {}
    }

    @Test("quick_check finds pages overwritten in the middle of a file that is open and was read")
    func checkFindsDamageWhileOpen() async throws {
        let directory = try TemporaryDirectory()
        try await Self.filledHistory(at: directory.historyPath)
        let history = try HistoryDatabase(path: directory.historyPath)
        // Every page read once, so the connections hold them in memory.
        #expect(try await history.page(limit: 5000).events.count == 3000)
        #expect(await history.quickCheck() == nil)
        try HistoryFaults.overwriteMiddlePages(of: directory.historyPath)
        let problem = try #require(await history.quickCheck())
        #expect(problem.kind == .damaged)
        #expect(problem.file == directory.historyPath)
        #expect(problem.message.contains("--history-recover"))
    }

    @Test("a damaged file is refused at open, named, with what to do")
    func damagedFileIsRefused() async throws {
        let directory = try TemporaryDirectory()
        try await Self.filledHistory(at: directory.historyPath)
        try HistoryFaults.overwriteMiddlePages(of: directory.historyPath)
        do {
            _ = try await HistoryDatabase.openChecked(path: directory.historyPath, recover: false)
            Issue.record("a damaged history opened")
        } catch let problem as HistoryProblem {
            #expect(problem.kind == .damaged)
            #expect(problem.message.contains(directory.historyPath))
            #expect(problem.message.contains("--history-recover"))
        }
        // Nothing was moved
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(!names.contains { $0.contains("damaged") })
    }

    @Test("with recover, a damaged file is moved aside (kept, timestamped, 0600) and a fresh history starts")
    func damagedFileIsMovedAside() async throws {
        let directory = try TemporaryDirectory()
        try await Self.filledHistory(at: directory.historyPath)
        try HistoryFaults.overwriteMiddlePages(of: directory.historyPath)
        let size = try FileManager.default.attributesOfItem(atPath: directory.historyPath)[.size] as? Int
        let when = Date(timeIntervalSince1970: 1_750_000_000)  // 2025-06-15T15:06:40Z
        let (history, aside) = try await withUmask(0o022) {
            try await HistoryDatabase.openChecked(path: directory.historyPath, recover: true, now: when)
        }
        #expect(aside == directory.historyPath + ".damaged-20250615T150640Z")
        let kept = try #require(aside)
        #expect(try FileManager.default.attributesOfItem(atPath: kept)[.size] as? Int == size)
        #expect(HistoryFaults.mode(kept) == 0o600)
        #expect(try await history.eventCount == 0)
        #expect(await history.quickCheck() == nil)
        var factory = EventFactory()
        #expect(try await history.append(factory.flow()) == 8)
    }

    @Test("a file that is not a database at all is damaged too, and recoverable")
    func garbageFileIsDamaged() async throws {
        let directory = try TemporaryDirectory()
        try Data(repeating: 0x41, count: 64 * 1024).write(to: URL(filePath: directory.historyPath))
        await #expect(throws: HistoryProblem.self) { try await HistoryDatabase.openChecked(path: directory.historyPath, recover: false) }
        let (history, aside) = try await HistoryDatabase.openChecked(path: directory.historyPath, recover: true)
        #expect(aside != nil)
        #expect(try await history.eventCount == 0)
    }

    @Test("SQLite's failures are named: read-only, disk full")
    func problemsAreNamed() async throws {
        try await withHistory { history in
            var factory = EventFactory()
            try await HistoryFaults.readOnly(history, true)
            let readOnly = await #expect(throws: DatabaseError.self) { try await history.append(factory.flow()) }
            #expect(readOnly.flatMap { HistoryProblem($0, file: history.path) }?.kind == .readOnly)
            #expect(readOnly.flatMap { HistoryProblem($0, file: history.path) }?.detail.hasPrefix("SQLITE_READONLY (") == true)
            try await HistoryFaults.readOnly(history, false)
            try await HistoryFaults.diskFull(history, true)
            let events = (0..<300).map { factory.make(.error(code: "E\($0)", message: String(repeating: "y", count: 500))) }
            let full = await #expect(throws: DatabaseError.self) { try await history.append(events) }
            let problem = full.flatMap { HistoryProblem($0, file: history.path) }
            #expect(problem?.kind == .diskFull)
            #expect(problem?.message.contains("full") == true)
            try await HistoryFaults.diskFull(history, false)
            #expect(try await history.append(events) == 300)
        }
    }

    @Test("a file SQLite opens read-only answers writes with SQLITE_READONLY, named read-only")
    func readOnlyOpenIsNamed() async throws {
        let directory = try TemporaryDirectory()
        try await Self.filledHistory(at: directory.historyPath, events: 10)
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: directory.historyPath, configuration: configuration)
        let error = await #expect(throws: DatabaseError.self) {
            try await queue.write { db in try db.execute(sql: "DELETE FROM event") }
        }
        #expect(error.flatMap { HistoryProblem($0, file: nil) }?.kind == .readOnly)
    }

    @Test("errors that are not the disk's are not history problems")
    func otherErrorsAreNotProblems() {
        #expect(HistoryProblem(DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table"), file: nil) == nil)
        #expect(HistoryProblem(CancellationError(), file: nil) == nil)
        #expect(HistoryProblem(DatabaseError(resultCode: .SQLITE_IOERR_WRITE, message: "disk I/O error"), file: "h")?.kind == .ioError)
        #expect(HistoryProblem(DatabaseError(resultCode: .SQLITE_CORRUPT, message: "malformed"), file: "h")?.kind == .damaged)
    }
}
