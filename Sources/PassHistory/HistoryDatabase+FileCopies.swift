import Foundation
import GRDB

/// The history file whole on its own: in WAL mode the newest commits live in `history.sqlite-wal` until a checkpoint
/// copies them into `history.sqlite`, so copying `history.sqlite` alone (a backup, a file sent with a ticket) could
/// miss them, or miss the whole schema of a young history.
extension HistoryDatabase {
    /// Copies every commit in the write-ahead log into the file and empties the log (`PRAGMA
    /// wal_checkpoint(TRUNCATE)`), waiting up to `patience` for reads still running. Called at a clean shutdown
    /// (``Console/shutdown()``): `history.sqlite` then holds everything on its own. A history in memory has no log.
    /// - Throws: SQLite's error when the log could not be emptied (a read that did not end in time).
    public func checkpointForShutdown(patience: Duration = .seconds(5)) async throws {
        guard writer is DatabasePool else { return }
        let milliseconds = Int(patience.components.seconds * 1000 + patience.components.attoseconds / 1_000_000_000_000_000)
        try await writer.barrierWriteWithoutTransaction { db in
            try db.execute(sql: "PRAGMA busy_timeout = \(milliseconds)")
            defer { try? db.execute(sql: "PRAGMA busy_timeout = 0") }
            let (logFrames, copiedFrames) = try db.checkpoint(.truncate)
            // TRUNCATE succeeds only once every frame is copied and the log is emptied; (0, 0) reads so afterwards.
            guard logFrames == copiedFrames else {
                throw DatabaseError(resultCode: .SQLITE_BUSY, message: "\(copiedFrames) of \(logFrames) log frames copied")
            }
        }
    }

    /// A whole copy of the history at `destination` (replaced if it exists), taken with SQLite's online backup API
    /// while the history stays in use: one consistent snapshot, commits still in the write-ahead log included, in a
    /// file that needs no `-wal` beside it. Written beside `destination` first and renamed into place, so a failed copy
    /// leaves any earlier one as it was. The copy is 0600, like the history.
    /// - Throws: ``HistoryProblem`` when `destination` is the history itself; SQLite's or the file system's error.
    public func backup(to destination: String) async throws {
        guard let path else { throw HistoryProblem(kind: .ioError, file: destination, detail: "a history in memory has no file to copy") }
        let resolved = { (file: String) in URL(fileURLWithPath: file).standardizedFileURL.resolvingSymlinksInPath().path }
        guard resolved(destination) != resolved(path) else {
            throw HistoryProblem(kind: .ioError, file: destination, detail: "the copy must go to another file than the history itself")
        }
        let source = writer
        let partial = destination + ".partial"
        for suffix in HistoryFiles.suffixes { try? FileManager.default.removeItem(atPath: partial + suffix) }
        HistoryFiles.secure(partial)
        // GRDB's backup is synchronous: on a thread of its own rather than one of the concurrency pool's.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let copy = try DatabaseQueue(path: partial)
                    try source.backup(to: copy)
                    try copy.close()
                })
            }
        }
        // An earlier copy's companions would be read as part of the new file: gone before it takes the name.
        for suffix in HistoryFiles.suffixes.dropFirst() { try? FileManager.default.removeItem(atPath: destination + suffix) }
        guard rename(partial, destination) == 0 else {
            throw HistoryProblem(kind: .ioError, file: destination, detail: "could not move the copy into place: \(String(cString: strerror(errno)))")
        }
    }
}
