import ArgumentParser
import Foundation
import Logging
import PassHistory
import PassHistoryPostgres
import PostgresNIO

/// What `--history` (or `PASSCONSOLE_HISTORY_URL`) names: a SQLite file (a plain path, the embedded default) or a
/// team's PostgreSQL database (a `postgres://user:password@host:5432/database` URL).
enum HistoryLocation: Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresLocation)

    /// The environment variable naming the history when `--history` is not given.
    static let environmentVariable = "PASSCONSOLE_HISTORY_URL"
    /// The history when neither names one.
    static let defaultPath = ".passconsole/history.sqlite"

    /// `option` when given, else `PASSCONSOLE_HISTORY_URL` when set and not empty, else ``defaultPath``. A value with a
    /// scheme (`name://`) must be a valid PostgreSQL URL: a mistyped URL is an error, never a file of that name.
    init(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ValidationError) {
        let fromEnvironment = environment[Self.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
        let text = option ?? fromEnvironment ?? Self.defaultPath
        guard text.contains("://") else {
            self = .sqlite(path: text)
            return
        }
        let source = option != nil ? "--history" : Self.environmentVariable
        do { self = .postgres(try PostgresLocation(url: text)) } catch {
            throw ValidationError("\(source) is not a usable PostgreSQL URL: \(error.description). Expected "
                + "postgres://user:password@host:5432/database (a plain path selects a SQLite file).")
        }
    }

    /// The file's path, or the URL without its password.
    var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let location): location.description
        }
    }

    /// Connects to the PostgreSQL history at `location` and migrates it; a server that cannot be reached or refuses
    /// the role is a ``ValidationError`` naming the location (never its password) and what to check.
    static func openPostgres(_ location: PostgresLocation, logger: Logger) async throws -> PostgresHistory {
        do {
            var postgresLogger = logger
            postgresLogger.logLevel = max(logger.logLevel, .warning)
            return try await PostgresHistory(location: location, logger: postgresLogger)
        } catch {
            throw ValidationError("""
                Cannot open the PostgreSQL history \(location): \(reason(error)).
                Check that the server runs and accepts TCP connections on \(location.host):\(location.port), that the role \
                \(location.username) may connect to the database \(location.database) (with the password in the URL if the \
                server asks for one), or pick another history with --history / \(environmentVariable).
                """)
        }
    }

    /// Why opening failed, in words: PostgreSQL's message, or the network's error (PostgresNIO's own description is
    /// deliberately empty).
    static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return "the server says: \(message)\(state)"
        }
        if let underlying = error.underlying { return "\(underlying)" }
        return "\(error.code)"
    }
}
