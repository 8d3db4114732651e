import ArgumentParser
import Foundation
import Logging
import PassHistory
import PassHistoryPostgres
import PostgresNIO

/// What `--history` (or `PASSCONSOLE_HISTORY_URL`) names: a SQLite file (a plain path, the embedded default) or a
/// team's PostgreSQL database (a `postgres://user:password@host:5432/database` URL).
public enum HistoryLocation: Equatable, CustomStringConvertible, Sendable {
    case sqlite(path: String)
    case postgres(PostgresLocation)

    /// The environment variable naming the history when `--history` is not given.
    public static let environmentVariable = "PASSCONSOLE_HISTORY_URL"
    /// The history when neither names one.
    public static let defaultPath = ".passconsole/history.sqlite"

    /// `option` when given, else `PASSCONSOLE_HISTORY_URL` when set and not empty, else ``defaultPath``. A value with a
    /// scheme (`name://`) must be a valid PostgreSQL URL: a mistyped URL is an error, never a file of that name.
    public init(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ValidationError) {
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
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let location): location.description
        }
    }

    /// Connects to the PostgreSQL history at `location` and migrates it; a server that cannot be reached or refuses
    /// the role is a ``ValidationError`` naming the location (never its password) and what to check.
    public static func openPostgres(_ location: PostgresLocation, leaseTimeout: Duration = PostgresHistory.defaultLeaseTimeout, logger: Logger)
        async throws -> PostgresHistory
    {
        do {
            var postgresLogger = logger
            postgresLogger.logLevel = max(logger.logLevel, .warning)
            return try await PostgresHistory(location: location, logger: postgresLogger, leaseTimeout: leaseTimeout)
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
    public static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return tlsReason(error) ?? "\(error)" }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return "the server says: \(message)\(state)"
        }
        if error.code == .sslUnsupported {
            return "the server does not offer TLS, and the URL's sslmode requires it (turn ssl on in the server's "
                + "postgresql.conf, or use sslmode=prefer / disable)"
        }
        if let underlying = error.underlying { return tlsReason(underlying) ?? "\(underlying)" }
        return "\(error.code)"
    }

    /// TLS's failure in words (`nil`: not a TLS failure): above all a certificate that does not verify.
    public static func tlsReason(_ error: any Error) -> String? {
        guard error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError else { return nil }
        let text = "\(error)"
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") {
            return "TLS failed: the server's certificate could not be verified (\(text)). Check that sslrootcert names the CA "
                + "that signed the server's certificate, and for sslmode=verify-full that the certificate was issued for the "
                + "host the URL names"
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "TLS failed: the server's certificate was not issued for the host the URL names (\(text)). Connect by the "
                + "name the certificate carries, or use sslmode=verify-ca"
        }
        return "TLS failed: \(text)"
    }
}
