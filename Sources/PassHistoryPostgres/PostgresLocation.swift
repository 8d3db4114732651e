import Foundation

/// Where a PostgreSQL history lives, as a console is told it: `postgres://user:password@host:port/database` (the
/// scheme `postgresql://` too; port 5432 when left out; user and password percent-encoded as in any URL), with libpq's
/// TLS options: `sslmode=disable|prefer|require|verify-ca|verify-full` (``SSLMode``; `prefer` when left out, as libpq)
/// and `sslrootcert=/path/ca.pem` (the CA that signed the server's certificate; the system's trusted CAs when left
/// out). Any other option is refused rather than ignored.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// Whether and how the connection is encrypted, and how much of the server's certificate is checked: libpq's
    /// `sslmode` values.
    public enum SSLMode: String, Sendable, CaseIterable {
        /// Plain TCP, never TLS.
        case disable
        /// TLS when the server offers it, plain TCP when it does not; the certificate is not checked.
        case prefer
        /// TLS or no connection; the certificate is not checked (encryption against eavesdropping, not impostors).
        case require
        /// TLS, and the certificate must be signed by a trusted CA (`sslrootcert`); its host name is not checked.
        case verifyCA = "verify-ca"
        /// TLS, the certificate signed by a trusted CA and issued for the host the URL names: libpq's safest mode.
        case verifyFull = "verify-full"
    }


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
    /// Whether and how to use TLS (`sslmode=`).
    public var sslMode: SSLMode
    /// The PEM file of the CA(s) trusted to sign the server's certificate (`sslrootcert=`); `nil`: the system's.
    public var sslRootCert: String?

    /// Why a URL does not name a PostgreSQL history.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case notAURL
        case scheme(String)
        case noHost
        case port(Int)
        case noUser
        case noDatabase
        case option(String)
        case sslMode(String)
        case rootCertWithoutVerification(SSLMode)

        public var description: String {
            switch self {
            case .notAURL: "not a URL (expected postgres://user:password@host:5432/database)"
            case .scheme(let scheme): "the scheme must be postgres:// or postgresql://, not \(scheme)://"
            case .noHost: "the URL names no host (postgres://user@host/database)"
            case .port(let port): "port \(port) is out of range (1-65535)"
            case .noUser: "the URL names no user (postgres://user@host/database)"
            case .noDatabase: "the URL names no database (postgres://user@host/database)"
            case .option(let option): "unsupported option \(option): only sslmode= and sslrootcert= are understood"
            case .sslMode(let mode): "unknown sslmode=\(mode): use disable, prefer, require, verify-ca or verify-full"
            case .rootCertWithoutVerification(let mode):
                "sslrootcert= names the CA to verify the server's certificate with, but sslmode=\(mode.rawValue) does not verify it: "
                    + "use sslmode=verify-full (or verify-ca)"
            }
        }
    }

    /// A location from its parts.
    public init(host: String, port: Int = 5432, username: String, password: String?, database: String, sslMode: SSLMode = .prefer,
        sslRootCert: String? = nil)
    {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.sslMode = sslMode
        self.sslRootCert = sslRootCert
    }

    /// Reads `postgres://user:password@host:port/database[?sslmode=…&sslrootcert=…]`.
    public init(url text: String) throws(Problem) {
        guard let components = URLComponents(string: text), let scheme = components.scheme else { throw .notAURL }
        guard scheme == "postgres" || scheme == "postgresql" else { throw .scheme(scheme) }
        guard let host = components.host, !host.isEmpty else { throw .noHost }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw .port(port) }
        guard let user = components.user, !user.isEmpty else { throw .noUser }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw .noDatabase }
        var sslMode = SSLMode.prefer
        var rootCert: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = SSLMode(rawValue: item.value ?? "") else { throw .sslMode(item.value ?? "") }
                sslMode = mode
            case "sslrootcert" where !(item.value ?? "").isEmpty:
                rootCert = item.value
            default:
                throw .option("\(item.name)=\(item.value ?? "")")
            }
        }
        // A CA given for a mode that never looks at the certificate is a mistake the user should hear of.
        if rootCert != nil, sslMode != .verifyCA, sslMode != .verifyFull { throw .rootCertWithoutVerification(sslMode) }
        self.init(host: host, port: port, username: user, password: components.password, database: database, sslMode: sslMode,
            sslRootCert: rootCert)
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
        // The TLS choice when it is not libpq's default.
        var options: [URLQueryItem] = []
        if sslMode != .prefer { options.append(URLQueryItem(name: "sslmode", value: sslMode.rawValue)) }
        if let sslRootCert { options.append(URLQueryItem(name: "sslrootcert", value: sslRootCert)) }
        if !options.isEmpty { components.queryItems = options }
        return components.string ?? "postgres://\(host):\(port)/\(database)"
    }
}
