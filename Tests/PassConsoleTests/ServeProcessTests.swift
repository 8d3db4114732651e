import AccessEnabler
import Foundation
import MicroHTTP
import PassHistory
import PassTestSupport
import Testing

/// `passconsole serve` as `make run` starts it: the console, the backend and the demo apps in one process; and the
/// history surviving a `kill -9`.
@Suite(.serialized)
struct ServeProcessTests {
    @Test func serveRunsTheDemoAndItsHistorySurvivesAKill9() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Given the console as make run starts it
        let (process, url) = try await ServeProcess.start(folder)
        let client = TestHTTPClient(baseURL: url)
        // Then the three demo apps run and have reported their setRequestor
        let apps = try await client.get("/api/apps").json["apps"] as? [[String: Any]] ?? []
        #expect(Set(apps.compactMap { $0["id"] as? String }) == ["news-ios", "sports-ios", "kids-tvos"])
        #expect(apps.allSatisfy { $0["running"] as? Bool == true })
        #expect(try await client.get("/").status == 200)
        // When another process reports events and the console is killed without warning
        let session = UUID()
        let app = AppIdentity(bundleID: "com.crash.test", teamID: "CRASH1")
        let events = (0..<100).map { i in
            EntitlementEvent(sequence: i, timestamp: Date(), sessionID: session, deviceID: "d", app: app, requestorID: "REF30",
                mvpdID: nil, kind: .apiCall(name: "call\(i)", arguments: [:]))
        }
        let ingest = try await client.send("POST", "/api/ingest", headers: ["Content-Type": "application/x-ndjson"],
            body: try EntitlementEvent.Wire.ndjson(events))
        #expect(ingest.json["accepted"] as? Int == 100)
        process.terminate(SIGKILL)
        _ = await process.exited()
        // Then the history file holds every event it acknowledged, and a restarted console shows them
        let history = try HistoryDatabase(path: folder.appendingPathComponent("history.sqlite").path)
        #expect(try await history.count(matching: HistoryFilter(sessionID: session)) == 100)
        let (restarted, again) = try await ServeProcess.start(folder)
        defer { restarted.terminate() }
        let sessions = try await TestHTTPClient(baseURL: again).get("/api/sessions?q=com.crash.test").json["sessions"] as? [[String: Any]]
        #expect(sessions?.first?["eventCount"] as? Int == 100)
    }

    /// Issue #27 item 15: `passconsole backup` copies a running console's history whole, and after a clean stop
    /// (SIGTERM) `history.sqlite` copied alone, without its `-wal` and `-shm`, holds every event.
    @Test func aBackupWhileRunningAndTheFileAloneAfterACleanStopHoldEveryEvent() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let historyPath = folder.appendingPathComponent("history.sqlite").path
        let (process, url) = try await ServeProcess.start(folder, arguments: ["--no-demo"])
        let session = UUID()
        let app = AppIdentity(bundleID: "com.clean.stop", teamID: "CLEAN1")
        let events = (0..<100).map { i in
            EntitlementEvent(sequence: i, timestamp: Date(), sessionID: session, deviceID: "d", app: app, requestorID: "REF30",
                mvpdID: nil, kind: .apiCall(name: "call\(i)", arguments: [:]))
        }
        let ingest = try await TestHTTPClient(baseURL: url).send("POST", "/api/ingest", headers: ["Content-Type": "application/x-ndjson"],
            body: try EntitlementEvent.Wire.ndjson(events))
        #expect(ingest.json["accepted"] as? Int == 100)
        // A backup taken while it runs
        let backup = folder.appendingPathComponent("backup.sqlite").path
        let binary = try #require(BuiltBinary.passconsole)
        let backupRun = try ChildProcess(binary.path(percentEncoded: false), ["backup", backup, "--history", historyPath],
            directory: BuiltBinary.packageRoot)
        #expect(await backupRun.exited() == 0)
        #expect(try await Self.events(ofSession: session, inCopyOf: backup, folder: folder) == 100)
        // A clean stop
        process.terminate(SIGTERM)
        #expect(await process.exited() == 0)
        #expect(try await Self.events(ofSession: session, inCopyOf: historyPath, folder: folder) == 100)
    }

    /// The events of `session` in a copy of the file at `path` alone, in a folder of its own.
    static func events(ofSession session: UUID, inCopyOf path: String, folder: URL) async throws -> Int {
        let lone = folder.appendingPathComponent("lone-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: lone, withIntermediateDirectories: true)
        let copy = lone.appendingPathComponent("history.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        return try await HistoryDatabase(path: copy).count(matching: HistoryFilter(sessionID: session))
    }

    @Test func beyondLoopbackAnEmptyPASSCONSOLE_TOKENStillGetsATokenAndTheLANAddressIsAHost() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = ProcessInfo.processInfo.environment
        environment["PASSCONSOLE_TOKEN"] = ""
        let (process, url) = try await ServeProcess.start(folder, arguments:
            ["--host", "0.0.0.0", "--no-demo", "--access-token-file", folder.appendingPathComponent("token").path],
            environment: environment)
        defer { process.terminate() }
        let components = try #require(URLComponents(string: url))
        let token = try #require(components.queryItems?.first { $0.name == "token" }?.value)
        #expect(token.count == 64)
        let port = try #require(components.port)
        let local = TestHTTPClient(baseURL: "http://127.0.0.1:\(port)")
        #expect(try await local.get("/api/overview?token=").status == 401)
        #expect(try await local.get("/api/overview").status == 401)
        #expect(try await local.get("//api/overview").status == 401)
        #expect(try await local.get("/api/overview?token=\(token)").status == 200)
        // The machine's own LAN address works as Host, with the token.
        if let lan = LocalAddresses.interfaceAddresses().first(where: { !$0.hasPrefix("[") && !LocalAddresses.isLoopback($0) }) {
            let remote = TestHTTPClient(baseURL: "http://\(lan):\(port)")
            #expect(try await remote.get("/api/overview", headers: ["Authorization": "Bearer \(token)"]).status == 200)
            #expect(try await remote.get("/api/overview").status == 401)
        }
    }
}
