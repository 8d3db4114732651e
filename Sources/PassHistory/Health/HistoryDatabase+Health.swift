import Foundation
import GRDB

extension HistoryDatabase {
    /// The history at `path`, checked: opened (created 0600 when missing), migrated, and read through by SQLite's
    /// `quick_check`. A damaged file throws a ``HistoryProblem`` of kind `damaged` naming it, unless `recover` is set:
    /// then the damaged file and its companions are moved aside (kept, `path.damaged-STAMP`) and a fresh history is
    /// started at `path`.
    /// - Returns: the history, and where the damaged file was moved (`nil` when it was sound).
    public static func openChecked(path: String, recover: Bool, now: Date = Date()) async throws
        -> (history: HistoryDatabase, movedAside: String?)
    {
        let damage: HistoryProblem
        do {
            let history = try HistoryDatabase(path: path)
            guard let problem = await history.quickCheck(), problem.kind == .damaged else { return (history, nil) }
            try history.close()
            damage = problem
        } catch {
            guard let problem = HistoryProblem(error, file: path), problem.kind == .damaged else { throw error }
            damage = problem
        }
        guard recover else { throw damage }
        let aside = try HistoryFiles.moveAside(path, at: now)
        return (try HistoryDatabase(path: path), aside)
    }

    /// Runs SQLite's `quick_check` over the whole file (every page and record; not the indexes' contents, which
    /// `integrity_check` also compares): `nil` when sound, else what is wrong. Reads the file, not the pages this
    /// connection already holds in memory, so damage made since it last read them is found too.
    public func quickCheck() async -> HistoryProblem? {
        let file = path
        do {
            let findings = try await writer.read { db in
                // Drop the connection's cached pages: quick_check then reads every page from disk.
                try db.execute(sql: "PRAGMA shrink_memory")
                return try String.fetchAll(db, sql: "PRAGMA quick_check(20)")
            }
            guard findings != ["ok"] else { return nil }
            return HistoryProblem(kind: .damaged, file: file, detail: "quick_check: " + findings.prefix(5).joined(separator: "; "))
        } catch {
            return HistoryProblem(error, file: file)
                ?? HistoryProblem(kind: .ioError, file: file, detail: "quick_check could not run: \(error)")
        }
    }

    /// Closes the file's connections (a history in memory has nothing to close). Nothing may use it afterwards.
    package func close() throws {
        try (writer as? DatabasePool)?.close()
    }
}
