import AccessEnabler
import Foundation
import PassTestSupport
import Testing

/// `passconsole serve` on PostgreSQL while the server is stopped (issue #18): every route that reads the history
/// answers 503 in words, with `Retry-After`, once the lease timeout (`--history-timeout`) has passed, instead of
/// waiting on the pool; once the server is back the same routes answer 200. A cluster of the test's own: stopping the
/// shared one would break every other test.
@Suite(.serialized)
struct PostgresOutageServeTests {
    /// The routes that read the history: the events page, the sessions, the audit log, the events' export.
    static let readingRoutes = ["/api/events?limit=5", "/api/sessions", "/api/audit", "/api/events/export", "/api/sessions?q=com"]

    @Test func routesAnswer503InWordsWhilePostgresIsStoppedAnd200OnceItIsBack() async throws {
        let cluster = try await PostgresCluster.startOwn()
        let database = try await cluster.createDatabase()
        let url = "postgres://\(cluster.user):\(cluster.password)@\(cluster.host):\(cluster.port)/\(database)"
        let folder = try PostgresServeTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (process, console) = try await ServeProcess.start(folder, history: url, arguments: ["--no-demo", "--history-timeout", "1"])
        defer { process.terminate() }
        // The client gives up long after the lease timeout: a route waiting on the pool shows as a failed request.
        let client = TestHTTPClient(baseURL: console, timeout: TestTime.seconds(20))
        let live = try await PostgresServeTests.liveFeed(console)
        defer { live.closeNow() }
        #expect(try await PostgresServeTests.ingest(PostgresServeTests.events(3), into: client) == 3)
        for route in Self.readingRoutes {
            let answer = try await client.get(route)
            #expect(answer.status == 200, "\(route): \(answer.text)")
        }
        #expect(await live.read(until: "\"sequence\":2").contains("\"sequence\":2"))

        // When the server stops
        try await cluster.stopServer()
        // Then each route answers 503 with the console's JSON error in words and Retry-After, never the password
        for route in Self.readingRoutes {
            let answer = try await client.get(route)
            #expect(answer.status == 503, "\(route): \(answer.status) \(answer.text)")
            #expect(answer.json["error"] as? String == "history_unreachable", "\(route): \(answer.text)")
            #expect((answer.json["message"] as? String)?.contains("The history database postgres://") == true, "\(route): \(answer.text)")
            #expect((answer.json["message"] as? String)?.contains("is unreachable") == true, "\(route): \(answer.text)")
            #expect(answer.header("Retry-After") != nil, "\(route)")
            #expect(!answer.text.contains(cluster.password))
        }
        // And an app's batch is refused the same way (the app keeps it and sends it again)
        let refused = try await client.send("POST", "/api/ingest", headers: ["Content-Type": "application/x-ndjson"],
            body: try EntitlementEvent.Wire.ndjson(PostgresServeTests.events(2)))
        #expect(refused.status == 503, "\(refused.text)")
        // And the overview, which reads no history it cannot reach, names the problem
        let overview = try await client.get("/api/overview")
        #expect((overview.json["history"] as? [String: Any])?["state"] as? String == "unreachable", "\(overview.text)")

        // When the server is back, the same routes answer 200 again
        try await cluster.startServer()
        #expect(try await client.status(of: "/api/events?limit=5", becoming: 200, within: .seconds(TestTime.seconds(60))) == 200)
        for route in Self.readingRoutes {
            let answer = try await client.get(route)
            #expect(answer.status == 200, "\(route): \(answer.text)")
        }
        let page = try await client.get("/api/events?limit=5")
        #expect(page.json["total"] as? Int == 3, "\(page.text)")
        // And the live feed opened before the outage carries what is stored after it
        #expect(try await PostgresServeTests.ingest(PostgresServeTests.events(2, bundleID: "com.team.after"), into: client) == 2)
        // (Read until the last event: the two may come in separate messages.)
        #expect(await live.read(until: "id: 5\nevent: entitlement\n").contains("com.team.after"), "\(live.text)")
        #expect(PostgresServeTests.ids(live.text) == [1, 2, 3, 4, 5], "\(live.text)")
        process.terminate()
        _ = await process.exited()
        await cluster.remove()
    }
}
