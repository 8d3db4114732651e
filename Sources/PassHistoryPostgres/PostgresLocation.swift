import Foundation

/// Where a PostgreSQL history lives, as a console is told it: `postgres://user:password@host:port/database` (the
/// scheme `postgresql://` too; port 5432 when left out; user and password percent-encoded as in any URL).
///
/// Only `sslmode=disable` (the default) is accepted for now: TLS to the database is still to come, and a URL asking
/// for it is refused rather than quietly connecting without it.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// The server's host name or address.
    public var host: String
    /// The server's port (1–65535).
    public var port: Int
    /// The database role to connect as.
    public var username: String
    /// The role's password, if the server asks for one.
    public var password: String?
    /// The database holding the history.
    public var database: String

    /// Why a URL does not name a PostgreSQL history.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case notAURL
        case scheme(String)
        case noHost
        case port(Int)
        case noUser
        case noDatabase
        case option(String)

        public var description: String {
            switch self {
            case .notAURL: "not a URL (expected postgres://user:password@host:5432/database)"
            case .scheme(let scheme): "the scheme must be postgres:// or postgresql://, not \(scheme)://"
            case .noHost: "the URL names no host (postgres://user@host/database)"
            case .port(let port): "port \(port) is out of range (1-65535)"
            case .noUser: "the URL names no user (postgres://user@host/database)"
            case .noDatabase: "the URL names no database (postgres://user@host/database)"
            case .option(let option): "unsupported option \(option): only sslmode=disable is supported for now"
            }
        }
    }

    /// A location from its parts.
    public init(host: String, port: Int = 5432, username: String, password: String?, database: String) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    /// Reads `postgres://user:password@host:port/database[?sslmode=disable]`.
    public init(url text: String) throws(Problem) {
        guard let components = URLComponents(string: text), let scheme = components.scheme else { throw .notAURL }
        guard scheme == "postgres" || scheme == "postgresql" else { throw .scheme(scheme) }
        guard let host = components.host, !host.isEmpty else { throw .noHost }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw .port(port) }
        guard let user = components.user, !user.isEmpty else { throw .noUser }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw .noDatabase }
        for item in components.queryItems ?? [] where !(item.name == "sslmode" && item.value == "disable") {
            throw .option("\(item.name)=\(item.value ?? "")")
        }
        self.init(host: host, port: port, username: user, password: components.password, database: database)
    }

    /// The URL with the password left out, for logs and errors.
    public var description: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.host = host
        components.port = port
        components.user = username
        if password != nil { components.password = "***" }
        components.path = "/" + database
        return components.string ?? "postgres://\(host):\(port)/\(database)"
    }
}
