import Foundation
import PassTestSupport
import Testing

/// `passconsole serve --history 'postgres://…?sslmode=…&sslrootcert=…'` (issue #18): a console reaches its PostgreSQL
/// over TLS, and a certificate that does not verify stops start-up naming the cause.
@Suite(.serialized)
struct PostgresTLSServeTests {
    static let cluster = Task { try await PostgresCluster.startOwn(tls: true) }

    /// Runs `passconsole serve` on `history` until it exits (it should not start); returns its code and output.
    static func failedStart(_ history: String, folder: URL) async throws -> (code: Int32, output: String) {
        let binary = try #require(BuiltBinary.passconsole, Comment(rawValue: BuiltBinary.missingMessage))
        let output = folder.appendingPathComponent("out-\(UUID().uuidString.prefix(6))")
        let process = try ChildProcess(binary.path(percentEncoded: false),
            ["serve", "--port", "0", "--backend-port", "0", "--no-demo", "--device", folder.appendingPathComponent("device").path,
             "--history", history], directory: BuiltBinary.packageRoot, stdout: .file(output), stderr: .file(output))
        let code = await process.exited()
        return (code, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    @Test func aConsoleServesOverVerifiedTLSAndAWrongCAOrAServerWithoutTLSStopsStartUpNamingTheCause() async throws {
        let cluster = try await Self.cluster.value
        let tls = try #require(cluster.tls)
        let database = try await cluster.createDatabase()
        let base = "postgres://\(cluster.user):\(cluster.password)@localhost:\(cluster.port)/\(database)"
        let folder = try PostgresServeTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }

        // verify-full with the right CA: the console starts and reads and writes its history
        let (process, console) = try await ServeProcess.start(folder, history: base + "?sslmode=verify-full&sslrootcert=\(tls.caCertificate.path)",
            arguments: ["--no-demo"])
        let client = TestHTTPClient(baseURL: console)
        #expect(try await PostgresServeTests.ingest(PostgresServeTests.events(2), into: client) == 2)
        #expect(try await client.get("/api/events").json["total"] as? Int == 2)
        process.terminate()
        _ = await process.exited()

        // A CA that did not sign the server's certificate: start-up stops naming the cause, never the password
        let wrong = try await Self.failedStart(base + "?sslmode=verify-full&sslrootcert=\(tls.otherCACertificate.path)", folder: folder)
        #expect(wrong.code != 0)
        #expect(wrong.output.contains("certificate could not be verified"), "\(wrong.output)")
        #expect(wrong.output.contains("sslrootcert"), "\(wrong.output)")
        #expect(!wrong.output.contains(cluster.password))
        // A CA file that is not there
        let missing = try await Self.failedStart(base + "?sslmode=verify-full&sslrootcert=\(folder.path)/none.pem", folder: folder)
        #expect(missing.code != 0 && missing.output.contains("cannot read the CA certificate"), "\(missing.output)")

        // sslmode=require against a server without TLS (the shared cluster): refused, naming why
        let plain = try await PostgresCluster.shared()
        let plainDatabase = try await plain.createDatabase()
        let refused = try await Self.failedStart(
            "postgres://\(plain.user):\(plain.password)@127.0.0.1:\(plain.port)/\(plainDatabase)?sslmode=require", folder: folder)
        #expect(refused.code != 0 && refused.output.contains("does not offer TLS"), "\(refused.output)")
    }
}
