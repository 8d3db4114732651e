import AccessEnabler
import Foundation
import PassTestSupport
import Testing

/// `passconsole serve --history postgres://…` (issue #18 items 1 and 2), over real HTTP against the throwaway
/// PostgreSQL cluster the tests start: one console stores and serves what it ingests; two consoles on one database
/// see each other's events on their pages and live feeds (LISTEN/NOTIFY), resume with `Last-Event-ID` across them,
/// and share named operators; a wrong URL or an unreachable server stops start-up with what to fix.
@Suite(.serialized)
struct PostgresServeTests {
    /// A fresh database of the shared cluster, as a console is given it.
    static func historyURL() async throws -> String {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        return "postgres://\(cluster.user):\(cluster.password)@\(cluster.host):\(cluster.port)/\(database)"
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// `count` calls of one app's session.
    static func events(_ count: Int, session: UUID = UUID(), bundleID: String = "com.team.pg", from sequence: Int = 0) -> [EntitlementEvent] {
        (0..<count).map { i in
            EntitlementEvent(sequence: sequence + i, timestamp: Date(), sessionID: session, deviceID: "device-pg",
                app: AppIdentity(bundleID: bundleID, teamID: "TEAMPG"), requestorID: "REF30", mvpdID: nil,
                kind: .apiCall(name: "call\(sequence + i)", arguments: [:]))
        }
    }

    static func ingest(_ events: [EntitlementEvent], into client: TestHTTPClient, headers: [String: String] = [:]) async throws -> Int {
        let answer = try await client.send("POST", "/api/ingest", headers: headers.merging(["Content-Type": "application/x-ndjson"]) { $1 },
            body: try EntitlementEvent.Wire.ndjson(events))
        #expect(answer.status == 200, "\(answer.text)")
        return answer.json["accepted"] as? Int ?? -1
    }

    /// An SSE connection to `/api/events/stream` of the console at `url`, its headers read.
    static func liveFeed(_ url: String, lastEventID: Int64? = nil, token: String? = nil) async throws -> RawConnection {
        let port = try #require(URLComponents(string: url)?.port.flatMap { UInt16(exactly: $0) })
        let connection = try await BlockingWork.run { try RawConnection(port: port) }
        connection.send("GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
            + (lastEventID.map { "Last-Event-ID: \($0)\r\n" } ?? "") + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "") + "\r\n")
        #expect(await connection.read(until: "retry:").contains("retry:"))
        return connection
    }

    /// The IDs of the `entitlement` messages an SSE text carries, in order (read from the raw bytes: HTTP chunk sizes
    /// may sit between messages).
    static func ids(_ text: String) -> [Int64] {
        text.matches(of: /id: (\d+)\nevent: entitlement\n/).compactMap { Int64($0.output.1) }
    }

    @Test func oneConsoleOnPostgresStoresWhatItIngestsAndServesItOnEveryPageTheLiveFeedAndHealthz() async throws {
        let url = try await Self.historyURL()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (process, console) = try await ServeProcess.start(folder, history: url, arguments: ["--no-demo"])
        defer { process.terminate() }
        let client = TestHTTPClient(baseURL: console)
        let live = try await Self.liveFeed(console)
        defer { live.closeNow() }

        // When an app reports five events of one session
        let session = UUID()
        #expect(try await Self.ingest(Self.events(5, session: session), into: client) == 5)

        // Then the events page, the sessions list and the overview's counts show them, read from PostgreSQL
        let page = try await client.get("/api/events?limit=3")
        #expect(page.status == 200)
        #expect((page.json["events"] as? [Any])?.count == 3)
        #expect(page.json["total"] as? Int == 5)
        let filtered = try await client.get("/api/events?q=" + TestHTTPClient.escape("app:com.team.pg event:apiCall"))
        #expect((filtered.json["events"] as? [Any])?.count == 5, "\(filtered.text)")
        let sessions = try await client.get("/api/sessions")
        #expect(sessions.status == 200 && sessions.text.contains(session.uuidString))
        let overview = try await client.get("/api/overview")
        let counts = overview.json["counts"] as? [String: Any]
        #expect(counts?["events"] as? Int == 5 && counts?["sessions"] as? Int == 1, "\(overview.text)")
        // The overview names the database, never its password
        let cluster = try await PostgresCluster.shared()
        #expect((overview.json["historyFile"] as? String)?.hasPrefix("postgres://") == true)
        #expect(!overview.text.contains(cluster.password))

        // And the live feed carried each of them, in order, with the history's IDs
        #expect(await live.read(until: "\"sequence\":4").contains("\"sequence\":4"))
        #expect(Self.ids(live.text) == [1, 2, 3, 4, 5])

        // And /healthz reads the history for real and says it is fine
        let health = try await client.get("/healthz")
        #expect(health.status == 200, "\(health.text)")
        #expect(((health.json["checks"] as? [String: Any])?["history"] as? [String: Any])?["status"] as? String == "ok")
    }

    @Test func healthzFailsWhileTheDatabaseRefusesConnectionsAndPassesOnceItAcceptsThemAgain() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        let url = "postgres://\(cluster.user):\(cluster.password)@\(cluster.host):\(cluster.port)/\(database)"
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (process, console) = try await ServeProcess.start(folder, history: url, arguments: ["--no-demo"])
        defer { process.terminate() }
        let client = TestHTTPClient(baseURL: console, timeout: TestTime.seconds(30))
        #expect(try await client.get("/healthz").status == 200)

        // When the database stops taking connections and the console's are cut
        try await cluster.psql("ALTER DATABASE \(database) ALLOW_CONNECTIONS false")
        try await cluster.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)'")
        // Then /healthz answers 503 naming the history, without the URL or the password
        let failing = try await client.get("/healthz")
        #expect(failing.status == 503, "\(failing.text)")
        #expect(failing.json["failing"] as? [String] == ["history"], "\(failing.text)")
        #expect(!failing.text.contains(cluster.password) && !failing.text.contains("postgres://"))

        // And once it takes connections again, /healthz passes again
        try await cluster.psql("ALTER DATABASE \(database) ALLOW_CONNECTIONS true")
        #expect(try await client.status(of: "/healthz", becoming: 200, within: .seconds(TestTime.seconds(20))) == 200)
    }

    @Test func twoConsolesOnOneDatabaseSeeEachOthersEventsLiveResumeAcrossThemAndShareNamedOperators() async throws {
        let url = try await Self.historyURL()
        let folderA = try Self.folder()
        let folderB = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folderA); try? FileManager.default.removeItem(at: folderB) }
        let (processA, consoleA) = try await ServeProcess.start(folderA, history: url, arguments: ["--no-demo"])
        defer { processA.terminate() }
        let (processB, consoleB) = try await ServeProcess.start(folderB, history: url, arguments: ["--no-demo"])
        defer { processB.terminate() }
        let clientA = TestHTTPClient(baseURL: consoleA)
        let clientB = TestHTTPClient(baseURL: consoleB)

        // Given a live feed open on console B
        let liveB = try await Self.liveFeed(consoleB)
        defer { liveB.closeNow() }

        // When an app reports three events to console A
        let session = UUID()
        #expect(try await Self.ingest(Self.events(3, session: session), into: clientA) == 3)

        // Then B's live feed carries them (A's commit notified B through PostgreSQL) and B's pages list them
        #expect(await liveB.read(until: "\"sequence\":2").contains("\"sequence\":2"), "B's feed: \(liveB.text)")
        #expect(Self.ids(liveB.text) == [1, 2, 3])
        let pageB = try await clientB.get("/api/events")
        #expect((pageB.json["events"] as? [Any])?.count == 3 && pageB.json["total"] as? Int == 3)
        #expect(try await clientB.get("/api/sessions").text.contains(session.uuidString))

        // And a client of B that left after event 1 resumes with Last-Event-ID after more came through A: it gets
        // what it missed, each once, in order
        #expect(try await Self.ingest(Self.events(2, session: session, from: 3), into: clientA) == 2)
        let resumed = try await Self.liveFeed(consoleB, lastEventID: 1)
        defer { resumed.closeNow() }
        #expect(await resumed.read(until: "\"sequence\":4").contains("\"sequence\":4"), "resumed: \(resumed.text)")
        #expect(Self.ids(resumed.text) == [2, 3, 4, 5])

        // And an operator added on the shared history (by the CLI, on the PostgreSQL URL) counts on both consoles
        let added = try await Self.operatorCLI(["add", "olga", "--role", "operator", "--history", url])
        #expect(added.code == 0, "\(added.output)")
        let olga = try #require(added.output.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("pco_") }.map(String.init))
        for client in [clientA, clientB] {
            // Each console re-reads the operators every second: within a few, it asks everyone to sign in
            let deadline = ContinuousClock.now + .seconds(TestTime.seconds(10))
            var anonymous = try await client.get("/api/overview").status
            while anonymous != 401, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                anonymous = try await client.get("/api/overview").status
            }
            #expect(anonymous == 401, "\(client.baseURL)")
            let me = try await client.get("/api/me", headers: ["Authorization": "Bearer \(olga)"])
            #expect(me.status == 200 && me.json["name"] as? String == "olga", "\(client.baseURL): \(me.text)")
        }
        let listed = try await Self.operatorCLI(["list", "--history", url])
        #expect(listed.code == 0 && listed.output.contains("olga\toperator"), "\(listed.output)")
    }

    @Test func aWrongURLOrAnUnreachableServerStopsStartUpNamingWhatToFixWithoutThePassword() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = 1  // nothing listens on a privileged port of loopback: the connection is refused
        let cases: [(history: String?, environment: String?, expected: [String])] = [
            ("postgres://127.0.0.1/history", nil, ["--history is not a usable PostgreSQL URL", "names no user"]),
            ("postgres://pc:s3cret-pw@127.0.0.1:70000/history", nil, ["--history is not a usable PostgreSQL URL"]),
            ("postgres://pc:s3cret-pw@127.0.0.1/history?sslmode=allow", nil, ["unknown sslmode=allow", "verify-full"]),
            ("postgres://pc:s3cret-pw@127.0.0.1:\(port)/history", nil,
             ["Cannot open the PostgreSQL history postgres://pc:***@127.0.0.1:\(port)/history", "accepts TCP connections on 127.0.0.1:\(port)"]),
            (nil, "postgres://pc:s3cret-pw@127.0.0.1:\(port)/history", ["Cannot open the PostgreSQL history postgres://pc:***@127.0.0.1:\(port)/history"]),
            (nil, "mysql://pc@127.0.0.1/history", ["PASSCONSOLE_HISTORY_URL is not a usable PostgreSQL URL", "postgres:// or postgresql://"]),
        ]
        let binary = try #require(BuiltBinary.passconsole, Comment(rawValue: BuiltBinary.missingMessage))
        for (history, environment, expected) in cases {
            let output = folder.appendingPathComponent("out-\(UUID().uuidString.prefix(6))")
            var variables = ProcessInfo.processInfo.environment
            variables["PASSCONSOLE_HISTORY_URL"] = environment
            let process = try ChildProcess(binary.path(percentEncoded: false),
                ["serve", "--port", "0", "--backend-port", "0", "--no-demo", "--device", folder.appendingPathComponent("device").path]
                    + (history.map { ["--history", $0] } ?? []),
                environment: variables, directory: BuiltBinary.packageRoot, stdout: .file(output), stderr: .file(output))
            let code = await process.exited()
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            #expect(code != 0, "\(history ?? environment ?? ""): \(text)")
            for words in expected { #expect(text.contains(words), "\(history ?? environment ?? ""): \(text)") }
            #expect(!text.contains("s3cret-pw"), "the password leaked: \(text)")
            #expect(!text.contains("is running"), "\(text)")
        }
    }

    /// Runs `passconsole operator ARGS`; returns its exit code and what it printed.
    static func operatorCLI(_ arguments: [String]) async throws -> (code: Int32, output: String) {
        let binary = try #require(BuiltBinary.passconsole, Comment(rawValue: BuiltBinary.missingMessage))
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-cli-\(UUID().uuidString.prefix(6)).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = try ChildProcess(binary.path(percentEncoded: false), ["operator"] + arguments,
            directory: BuiltBinary.packageRoot, stdout: .file(output), stderr: .file(output))
        let code = await process.exited()
        return (code, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }
}
