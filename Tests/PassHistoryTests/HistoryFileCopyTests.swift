import AccessEnabler
import Foundation
import GRDB
import Testing
@testable import PassHistory

/// Issue #27 item 15: `history.sqlite` copied on its own (without `-wal`/`-shm`) holds every event: after a clean
/// shutdown's checkpoint, and in a copy taken with SQLite's backup API while the history is in use.
@Suite("History file copies")
struct HistoryFileCopyTests {
    /// The events in the file at `path`, opened on its own in a folder of its own (no `-wal` beside it).
    static func eventsInCopy(of path: String, in directory: TemporaryDirectory) throws -> Int {
        let lone = directory.url.appendingPathComponent("lone-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: lone, withIntermediateDirectories: true)
        let copy = lone.appendingPathComponent("history.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        #expect(!FileManager.default.fileExists(atPath: copy + "-wal"))
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: copy, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            guard try db.tableExists("event") else { return 0 }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM event") ?? 0
        }
    }

    @Test func afterTheShutdownCheckpointTheFileAloneHoldsEveryEvent() async throws {
        let directory = try TemporaryDirectory()
        var factory = EventFactory()
        let events = (0..<40).flatMap { _ in factory.flow() }
        let history = try HistoryDatabase(path: directory.historyPath)
        try await history.append(events)
        try await history.checkpointForShutdown()
        #expect(try Self.eventsInCopy(of: directory.historyPath, in: directory) == events.count)
        let log = try FileManager.default.attributesOfItem(atPath: directory.historyPath + "-wal")[.size] as? Int
        #expect(log == 0)
    }

    @Test func aBackupTakenWhileInUseIsWholeOnItsOwn() async throws {
        let directory = try TemporaryDirectory()
        var factory = EventFactory()
        let events = (0..<40).flatMap { _ in factory.flow() }
        let history = try HistoryDatabase(path: directory.historyPath)
        try await history.append(events)
        // The events are still in the write-ahead log (no checkpoint yet): a plain copy of the file misses them.
        #expect(try Self.eventsInCopy(of: directory.historyPath, in: directory) < events.count)
        let backup = directory.url.appendingPathComponent("backup.sqlite").path
        try await history.backup(to: backup)
        #expect(try Self.eventsInCopy(of: backup, in: directory) == events.count)
        let mode = try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // And the history goes on as before.
        try await history.append([factory.make(.apiCall(name: "after", arguments: [:]))])
        #expect(try await history.eventCount == events.count + 1)
    }

    @Test func aBackupReplacesAnEarlierCopyWithoutItsStaleLogAndNeverOverwritesTheHistory() async throws {
        let directory = try TemporaryDirectory()
        var factory = EventFactory()
        let history = try HistoryDatabase(path: directory.historyPath)
        try await history.append(factory.flow())
        let backup = directory.url.appendingPathComponent("backup.sqlite").path
        try await history.backup(to: backup)
        // An earlier copy opened since, with a log of its own left beside it
        let other = try DatabaseQueue(path: backup)
        try await other.write { db in try db.execute(sql: "DELETE FROM event") }
        try other.close()
        _ = FileManager.default.createFile(atPath: backup + "-wal", contents: Data(repeating: 7, count: 4096))
        try await history.append(factory.flow())
        try await history.backup(to: backup)
        #expect(!FileManager.default.fileExists(atPath: backup + "-wal"))
        #expect(try Self.eventsInCopy(of: backup, in: directory) == 16)
        await #expect(throws: HistoryProblem.self) { try await history.backup(to: directory.historyPath) }
        await #expect(throws: HistoryProblem.self) { try await history.backup(to: directory.url.appendingPathComponent("./history.sqlite").path) }
        #expect(try await history.eventCount == 16)
    }
}
