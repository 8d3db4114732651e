import ArgumentParser
import Foundation
import PassCommandLine
import PassHistory

/// `passconsole backup DESTINATION`: a whole copy of a SQLite history, taken with SQLite's online backup API while a
/// console may be running on it (copying `history.sqlite` by hand can miss the commits still in its `-wal`).
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Copy the SQLite history to a file, whole, even while a console runs on it.")

    @Argument(help: "The copy's path (replaced if it exists; written 0600).") var destination: String
    @Option(help: ArgumentHelp(
        "The SQLite history to copy.", discussion: "Default: $PASSCONSOLE_HISTORY_URL when set, else .passconsole/history.sqlite."))
    var history: String?

    func run() async throws {
        guard case .sqlite(let path) = try HistoryLocation(option: history) else {
            throw ValidationError("backup copies a SQLite history; back up a PostgreSQL history with pg_dump.")
        }
        guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("There is no history at \(path).") }
        guard URL(filePath: destination).standardizedFileURL != URL(filePath: path).standardizedFileURL else {
            throw ValidationError("The copy must go to another file than the history itself.")
        }
        let database: HistoryDatabase
        do { database = try HistoryDatabase(path: path) } catch {
            throw ValidationError("Cannot open the history \(path): \(HistoryProblem(error, file: path)?.message ?? "\(error)")")
        }
        do { try await database.backup(to: destination) } catch {
            throw ValidationError("Cannot write the copy to \(destination): \(error)")
        }
        print("Copied the history \(path) to \(destination).")
    }
}
