import AccessEnabler
import Crypto
import Foundation
import PassConsole
import PassHistory
import PassTestSupport
import Testing

/// Named operators (issue #18 item 3): `passconsole operator add|list|revoke` on a history file, and a real
/// `passconsole serve` on 127.0.0.1 that lets viewers read, operators change, names them in the audit log and
/// refuses a revoked token within a second.
@Suite(.serialized)
struct NamedOperatorTests {
    /// Runs `passconsole operator ARGS --history FILE`; returns its exit code and what it printed.
    static func cli(_ folder: URL, _ arguments: [String]) async throws -> (code: Int32, output: String) {
        let binary = try #require(BuiltBinary.passconsole, Comment(rawValue: BuiltBinary.missingMessage))
        let output = folder.appendingPathComponent("cli-\(UUID().uuidString.prefix(6)).out")
        let process = try ChildProcess(binary.path(percentEncoded: false),
            ["operator"] + arguments + ["--history", folder.appendingPathComponent("history.sqlite").path],
            directory: BuiltBinary.packageRoot, stdout: .file(output), stderr: .file(output))
        let code = await process.exited()
        return (code, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    /// The personal token in `add`'s output.
    static func token(in output: String) throws -> String {
        let word = output.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("pco_") }
        return String(try #require(word, "no token printed: \(output)"))
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("operators-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func addListRevokeFromTheCLIPrintTheTokenOnceAndStoreOnlyItsHash() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let added = try await Self.cli(folder, ["add", "alice", "--role", "operator"])
        #expect(added.code == 0, "\(added.output)")
        let token = try Self.token(in: added.output)
        #expect(token.count == 68 && token.dropFirst(4).allSatisfy(\.isHexDigit))
        // A name is never reused; a bad name or role is refused with why
        let again = try await Self.cli(folder, ["add", "alice", "--role", "viewer"])
        #expect(again.code != 0 && again.output.contains("already exists"))
        #expect(try await Self.cli(folder, ["add", "bad name", "--role", "viewer"]).code != 0)
        #expect(try await Self.cli(folder, ["add", "bob", "--role", "admin"]).code != 0)
        #expect(try await Self.cli(folder, ["add", "vera", "--role", "viewer"]).code == 0)
        // list names them and their roles, never a token
        let listed = try await Self.cli(folder, ["list"])
        #expect(listed.code == 0)
        #expect(listed.output.contains("alice\toperator") && listed.output.contains("vera\tviewer"))
        #expect(!listed.output.contains("pco_") && !listed.output.contains(OperatorToken.hash(token)))
        // The store keeps the SHA-256 of the token, and the token appears in none of the history's files
        let history = try HistoryDatabase(path: folder.appendingPathComponent("history.sqlite").path)
        let alice = try #require(try await history.operators().first { $0.name == "alice" })
        #expect(alice.tokenHash == SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined())
        #expect(alice.role == .operator && alice.revokedAt == nil)
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasPrefix("history.sqlite") {
            let bytes = try Data(contentsOf: folder.appendingPathComponent(file))
            #expect(bytes.range(of: Data(token.utf8)) == nil, "\(file) holds the token")
        }
        // revoke marks it; an unknown name is an error
        let revoked = try await Self.cli(folder, ["revoke", "alice"])
        #expect(revoked.code == 0 && revoked.output.contains("Revoked alice"))
        #expect(try await Self.cli(folder, ["list"]).output.contains("alice\toperator\tadded"))
        #expect(try await Self.cli(folder, ["list"]).output.contains("revoked"))
        #expect(try await Self.cli(folder, ["revoke", "nobody"]).code != 0)
    }

    @Test func viewersReadRedactedOperatorsChangeTheAuditNamesThemAndARevokedTokenIsRefusedWithinASecond() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let vera = try Self.token(in: try await Self.cli(folder, ["add", "vera", "--role", "viewer"]).output)
        let otto = try Self.token(in: try await Self.cli(folder, ["add", "otto", "--role", "operator"]).output)
        let (process, url) = try await ServeProcess.start(folder, arguments: ["--no-demo"])
        defer { process.terminate() }
        let client = TestHTTPClient(baseURL: url)
        let asVera = ["Authorization": "Bearer \(vera)"]
        let asOtto = ["Authorization": "Bearer \(otto)"]

        // Without a token the page loads, and the API asks to sign in, even on loopback
        #expect(try await client.get("/").status == 200)
        let anonymous = try await client.get("/api/overview")
        #expect(anonymous.status == 401 && anonymous.json["error"] as? String == "sign_in_required")
        #expect(try await client.get("/api/overview", headers: ["Authorization": "Bearer pco_\(String(repeating: "0", count: 64))"]).status == 401)

        // A viewer reads, and is told who they are
        let overview = try await client.get("/api/overview", headers: asVera)
        #expect(overview.status == 200)
        let csrf = try #require(overview.json["csrfToken"] as? String)
        let me = try await client.get("/api/me", headers: asVera).json
        #expect(me["name"] as? String == "vera" && me["role"] as? String == "viewer" && me["signInRequired"] as? Bool == true)
        #expect(try await client.get("/api/events", headers: asVera).status == 200)
        #expect(try await client.get("/api/storage/export", headers: asVera).status == 200)  // redacted: allowed, audited

        // …but every change and every reveal is 403 with JSON saying why, judged on the normalised path
        let changes = ["/api/storage/clear", "/api/storage/import", "/api/storage/undo", "/api/sessions/\(UUID().uuidString)/replay",
                       "//api/storage/%63lear", "/api/./storage/undo"]
        for path in changes {
            let refused = try await client.post(path, json: Data(#"{"domain":"x","backupID":"x"}"#.utf8),
                headers: asVera.merging(["X-PassConsole-CSRF": csrf]) { $1 })
            #expect(refused.status == 403, "\(path)")
            #expect(refused.json["error"] as? String == "role_forbidden", "\(path)")
            #expect((refused.json["message"] as? String)?.contains("vera is a viewer") == true)
        }
        for reveal in ["personal", "true", "typo"] {
            let refused = try await client.get("/api/events/export?reveal=\(reveal)", headers: asVera)
            #expect(refused.status == 403 && refused.json["error"] as? String == "role_forbidden", "reveal=\(reveal)")
        }

        // An operator passes the same doors
        let ottoCSRF = try #require(try await client.get("/api/overview", headers: asOtto).json["csrfToken"] as? String)
        let withCSRF = asOtto.merging(["X-PassConsole-CSRF": ottoCSRF]) { $1 }
        for path in ["/api/storage/clear", "/api/storage/undo", "/api/sessions/\(UUID().uuidString)/replay"] {
            let answer = try await client.post(path, json: Data(#"{"domain":"x","backupID":"x"}"#.utf8), headers: withCSRF)
            #expect(![401, 403].contains(answer.status), "\(path): \(answer.status) \(answer.text)")
        }
        #expect(try await client.get("/api/events/export?reveal=personal", headers: asOtto).status == 200)

        // What a viewer reads through the API has personal data replaced, as an export would; an operator sees it
        let event = EntitlementEvent(sequence: 0, timestamp: Date(), sessionID: UUID(), deviceID: "d",
            app: AppIdentity(bundleID: "com.example.viewer", teamID: "TEAM1"), requestorID: "REF30", mvpdID: nil,
            kind: .apiCall(name: "setMetadata", arguments: ["userID": "cust-4711-private"]))
        let ingested = try await client.send("POST", "/api/ingest", headers: asOtto.merging(["Content-Type": "application/x-ndjson"]) { $1 },
            body: try EntitlementEvent.Wire.ndjson([event]))
        #expect(ingested.status == 200, "\(ingested.text)")
        let seenByOtto = try await client.get("/api/events", headers: asOtto)
        #expect(seenByOtto.text.contains("cust-4711-private"))
        let seenByVera = try await client.get("/api/events", headers: asVera)
        #expect(seenByVera.status == 200)
        #expect(!seenByVera.text.contains("cust-4711-private"))
        #expect(seenByVera.text.contains("com.example.viewer"))
        #expect((seenByVera.json["events"] as? [Any])?.count == (seenByOtto.json["events"] as? [Any])?.count)

        // …and so is the live feed, resumed from the start (the catch-up) as the Events page resumes it
        func stream(_ headers: [String: String]) async throws -> String {
            let port = try #require(URL(string: url)?.port.flatMap { UInt16(exactly: $0) })
            let connection = try await BlockingWork.run { try RawConnection(port: port) }
            connection.send("GET /api/events/stream?lastEventId=0 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                + headers.map { "\($0.key): \($0.value)\r\n" }.joined() + "Accept: text/event-stream\r\n\r\n")
            await connection.read(until: "com.example.viewer", timeout: .seconds(TestTime.seconds(20)))
            return await connection.read(until: "the whole frame, a moment later", timeout: .milliseconds(500))
        }
        let streamedToOtto = try await stream(asOtto), streamedToVera = try await stream(asVera)
        #expect(streamedToOtto.contains("cust-4711-private"))
        #expect(streamedToVera.contains("com.example.viewer") && streamedToVera.contains("setMetadata"), "\(streamedToVera)")
        #expect(!streamedToVera.contains("cust-4711-private"))

        // Every audit line names who did it
        let entries = try await client.get("/api/audit", headers: asVera).json["entries"] as? [[String: Any]] ?? []
        #expect(entries.contains { $0["action"] as? String == "export" && $0["operatorName"] as? String == "vera" })
        #expect(entries.contains { $0["action"] as? String == "reveal" && $0["operatorName"] as? String == "otto" })
        #expect(entries.allSatisfy { $0["operatorName"] is String })

        // Revoked by another process: refused within the console's refresh interval (a second), with JSON saying so
        #expect(try await Self.cli(folder, ["revoke", "otto"]).code == 0)
        let deadline = ContinuousClock.now + .seconds(TestTime.seconds(20))
        var revoked = try await client.get("/api/overview", headers: asOtto)
        while revoked.status != 401, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            revoked = try await client.get("/api/overview", headers: asOtto)
        }
        #expect(revoked.status == 401)
        #expect(revoked.json["error"] as? String == "token_revoked")
        #expect((revoked.json["message"] as? String)?.contains("otto") == true)
        #expect(try await client.get("/api/overview", headers: asVera).status == 200)
    }

    @Test func withOperatorsTheConsolesAccessTokenOnlyIngests() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await Self.cli(folder, ["add", "vera", "--role", "viewer"]).code == 0)
        var environment = ProcessInfo.processInfo.environment
        environment["PASSCONSOLE_TOKEN"] = "shared-console-token-0123456789"
        let (process, url) = try await ServeProcess.start(folder, arguments: ["--no-demo"], environment: environment)
        defer { process.terminate() }
        // People sign in with their own tokens: the printed URL carries none, and the shared token reads nothing
        #expect(!url.contains("token="))
        let client = TestHTTPClient(baseURL: url)
        let shared = ["Authorization": "Bearer shared-console-token-0123456789"]
        let refused = try await client.get("/api/overview", headers: shared)
        #expect(refused.status == 401 && refused.json["error"] as? String == "sign_in_required")
        // …but reporting apps keep ingesting with it
        let event = EntitlementEvent(sequence: 0, timestamp: Date(), sessionID: UUID(), deviceID: "d",
            app: AppIdentity(bundleID: "com.example.reporter", teamID: "TEAM1"), requestorID: "REF30", mvpdID: nil,
            kind: .apiCall(name: "setRequestor", arguments: [:]))
        let ingested = try await client.send("POST", "/api/ingest", headers: shared.merging(["Content-Type": "application/x-ndjson"]) { $1 },
            body: try EntitlementEvent.Wire.ndjson([event]))
        #expect(ingested.status == 200, "\(ingested.text)")
    }

    @Test func withoutOperatorsTheLoopbackConsoleNeedsNoSignInAsBefore() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (process, url) = try await ServeProcess.start(folder, arguments: ["--no-demo"])
        defer { process.terminate() }
        let client = TestHTTPClient(baseURL: url)
        let overview = try await client.get("/api/overview")
        #expect(overview.status == 200)
        let me = try await client.get("/api/me").json
        #expect(me["signInRequired"] as? Bool == false && me["name"] == nil)
        #expect((me["may"] as? [String: Bool])?.values.allSatisfy { $0 } == true)
        #expect(try await client.get("/api/events/export?reveal=personal").status == 200)
        let entries = try await client.get("/api/audit").json["entries"] as? [[String: Any]] ?? []
        #expect(entries.contains { $0["action"] as? String == "reveal" && $0["operatorName"] == nil })
    }
}
