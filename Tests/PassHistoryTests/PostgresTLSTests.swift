import Foundation
import PassHistory
import PassCommandLine
import PassHistoryPostgres
import PassTestSupport
import Testing

/// The history over TLS to PostgreSQL (issue #18): libpq's `sslmode` and `sslrootcert`, against a throwaway cluster
/// with `ssl=on` and a certificate signed by a CA `openssl` made in the test's folder.
@Suite("PostgreSQL TLS", .serialized)
struct PostgresTLSTests {
    static let cluster = Task { try await PostgresCluster.startOwn(tls: true) }

    /// The URL of a new database of the TLS cluster, by `host`, with `options`.
    static func url(host: String = "localhost", _ options: String) async throws -> (url: String, cluster: PostgresCluster, database: String) {
        let cluster = try await Self.cluster.value
        let database = try await cluster.createDatabase()
        return ("postgres://\(cluster.user):\(cluster.password)@\(host):\(cluster.port)/\(database)?\(options)", cluster, database)
    }

    /// How many of the history's connections to `database` are encrypted, and how many are not.
    /// Opens a history on a new database of the TLS cluster with `options`, reads it, and counts its connections to
    /// that database by whether they use TLS.
    static func connect(host: String, _ options: String) async throws -> (tls: Int, plain: Int) {
        let (url, cluster, database) = try await Self.url(host: host, options)
        let history = try await PostgresHistory(location: PostgresLocation(url: url))
        #expect(try await history.eventCount == 0)
        let counted = try await Self.connections(cluster, database)
        await history.close()
        return counted
    }

    static func connections(_ cluster: PostgresCluster, _ database: String) async throws -> (tls: Int, plain: Int) {
        let text = try await cluster.psql("""
            SELECT count(*) FILTER (WHERE s.ssl), count(*) FILTER (WHERE NOT s.ssl) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
            WHERE a.datname = '\(database)'
            """)
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").compactMap { Int($0) }
        return (parts.first ?? -1, parts.last ?? -1)
    }

    @Test("verify-full / verify-ca with the CA that signed the server's certificate connect over TLS",
        arguments: [("verify-full", "localhost"), ("verify-ca", "localhost"), ("verify-ca", "127.0.0.1")])
    func verifiedConnects(mode: String, host: String) async throws {
        let tls = try #require(try await Self.cluster.value.tls)
        let counted = try await Self.connect(host: host, "sslmode=\(mode)&sslrootcert=\(tls.caCertificate.path)")
        #expect(counted.tls >= 1 && counted.plain == 0, "\(counted)")
    }

    @Test("sslmode=require encrypts without checking the certificate")
    func requireConnects() async throws {
        let counted = try await Self.connect(host: "127.0.0.1", "sslmode=require")
        #expect(counted.tls >= 1 && counted.plain == 0, "\(counted)")
    }

    @Test("sslmode=disable connects without TLS to a server that offers it")
    func disableConnectsPlain() async throws {
        let counted = try await Self.connect(host: "127.0.0.1", "sslmode=disable")
        #expect(counted.tls == 0 && counted.plain >= 1, "\(counted)")
    }

    @Test("a CA that did not sign the server's certificate is refused, and so is a host the certificate does not name")
    func wrongCARefused() async throws {
        let cluster = try await Self.cluster.value
        let tls = try #require(cluster.tls)
        let (wrongCA, _, _) = try await Self.url("sslmode=verify-full&sslrootcert=\(tls.otherCACertificate.path)")
        // Refused for the certificate, in words (issue #27 item 16: any error at all was accepted here)
        let refusedCA = await #expect(throws: (any Error).self) { try await PostgresHistory(location: PostgresLocation(url: wrongCA)) }
        let caReason = refusedCA.map(HistoryLocation.reason) ?? ""
        #expect(caReason.hasPrefix("TLS failed: the server's certificate could not be verified"), "\(caReason)")
        // The certificate names localhost only: by its address the same server is not who it says it is (verify-full)
        let (otherName, _, _) = try await Self.url(host: "127.0.0.1", "sslmode=verify-full&sslrootcert=\(tls.caCertificate.path)")
        let refusedName = await #expect(throws: (any Error).self) { try await PostgresHistory(location: PostgresLocation(url: otherName)) }
        let nameReason = refusedName.map(HistoryLocation.reason) ?? ""
        #expect(nameReason.hasPrefix("TLS failed: the server's certificate"), "\(nameReason)")
        #expect(nameReason.contains("127.0.0.1") || nameReason.contains("host"), "\(nameReason)")
        let missing = try PostgresLocation(url: "postgres://u@localhost/d?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem")
        #expect(throws: PostgresLocation.TLSSetupError.self) { try missing.tlsConfiguration() }
    }
}
