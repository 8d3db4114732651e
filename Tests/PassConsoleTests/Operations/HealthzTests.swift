import AccessEnabler
import Foundation
import HistoryTestSupport
import MicroHTTP
import PassBackend
import PassTestSupport
import Testing
@testable import PassConsole

/// `GET /healthz` over real HTTP: 200 with each check and its latency when the history can be read and the backend
/// answers; 503 naming the failing check and why, without a file path or an address; no token needed.
@Suite(.serialized)
struct HealthzTests {
    func healthz(_ fixture: ConsoleFixture) async throws -> (status: Int, json: [String: Any], text: String) {
        let answer = try await TestHTTPClient(baseURL: fixture.console.baseURL).send("GET", "/healthz")
        return (answer.status, answer.json, answer.text)
    }

    func check(_ json: [String: Any], _ name: String) -> [String: Any] {
        ((json["checks"] as? [String: Any])?[name] as? [String: Any]) ?? [:]
    }

    @Test func bothChecksPassWith200AndTheirLatencyEvenWithoutTheAccessToken() async throws {
        try await ConsoleFixture.with(accessToken: "secret-token") { fixture in
            try fixture.console.start()
            let clock = ContinuousClock()
            let asked = clock.now
            let (status, json, _) = try await healthz(fixture)
            let wall = Double((clock.now - asked).components.seconds) * 1000 + Double((clock.now - asked).components.attoseconds) / 1e15
            #expect(status == 200)
            #expect(json["status"] as? String == "ok")
            #expect((json["failing"] as? [String]) == [])
            for name in ["history", "backend"] {
                #expect(check(json, name)["status"] as? String == "ok", "\(name): \(json)")
                let latency = try #require(check(json, name)["latencyMs"] as? Double, "\(name) has no latency")
                // measured inside the request: never more than the whole request took
                #expect(latency >= 0 && latency <= wall, "\(name): \(latency) ms of \(wall) ms")
            }
        }
    }

    @Test func aStoppedBackendAnswers503NamingTheBackend() async throws {
        // A backend of the test's own, so it can be stopped while the console runs.
        let service = BackendService(configuration: try BackendConfiguration.load(path: ConsoleFixture.configPath), logger: TestServer.logger)
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: PassBackend(service: service), logger: TestServer.logger)
        try server.start()
        let backendURL = server.baseURL
        try await ConsoleFixture.with(configure: { $0.backendURL = backendURL }) { fixture in
            try fixture.console.start()
            #expect(try await healthz(fixture).status == 200)
            await server.shutdown(gracePeriod: .seconds(1))
            let (status, json, text) = try await healthz(fixture)
            #expect(status == 503)
            #expect(json["status"] as? String == "failing")
            #expect((json["failing"] as? [String]) == ["backend"])
            #expect(check(json, "backend")["status"] as? String == "failing")
            #expect((check(json, "backend")["reason"] as? String)?.contains("refused") == true, "\(json)")
            #expect(check(json, "history")["status"] as? String == "ok")
            // Nothing a passer-by should learn: not the backend's address
            #expect(!text.contains(backendURL) && !text.contains("127.0.0.1"), "\(text)")
        }
    }

    @Test func aDamagedHistoryAnswers503NamingTheHistoryWithoutItsPath() async throws {
        try await ConsoleFixture.with(configure: { $0.historyCheckInterval = .milliseconds(200) }) { fixture in
            try await fixture.console.history.append(HistoryFaults.events(3000))
            try fixture.console.start()
            #expect(try await healthz(fixture).status == 200)
            // When pages in the middle of the file are overwritten while the console runs
            try await HistoryFaults.damage(fixture.sqlite)
            var answer = try await healthz(fixture)
            for _ in 0..<100 where answer.status == 200 {
                try await Task.sleep(for: .milliseconds(100))
                answer = try await healthz(fixture)
            }
            #expect(answer.status == 503)
            #expect((answer.json["failing"] as? [String]) == ["history"])
            #expect(check(answer.json, "history")["reason"] as? String == "the history file is damaged")
            #expect(check(answer.json, "backend")["status"] as? String == "ok")
            #expect(!answer.text.contains(fixture.sqlite.path!), "\(answer.text)")
        }
    }

    @Test func aReadOnlyHistoryAnswers503OnceAWriteFailedAnd200WhenWritingWorksAgain() async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            let ndjson = ["Content-Type": "application/x-ndjson"]
            try await HistoryFaults.readOnly(fixture.sqlite, true)
            #expect(try await client.send("POST", "/api/ingest", headers: ndjson, body: EntitlementEvent.Wire.ndjson(HistoryFaults.events(3))).status == 503)
            let (status, json, _) = try await healthz(fixture)
            #expect(status == 503)
            #expect((json["failing"] as? [String]) == ["history"])
            #expect((check(json, "history")["reason"] as? String)?.contains("read-only") == true, "\(json)")
            try await HistoryFaults.readOnly(fixture.sqlite, false)
            #expect(try await client.send("POST", "/api/ingest", headers: ndjson, body: EntitlementEvent.Wire.ndjson(HistoryFaults.events(3))).status == 200)
            #expect(try await healthz(fixture).status == 200)
        }
    }
}
