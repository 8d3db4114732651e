import AccessEnabler
import Foundation
import HistoryTestSupport
import PassHistory
import PassTestSupport
import Testing
@testable import PassConsole

/// `GET /metrics` over real HTTP: Prometheus text a server accepts (every family with HELP and TYPE), counters that
/// move with what happened (N events ingested adds N), request latency histograms by route pattern, and the API's
/// access rule (the token when the console has one).
@Suite(.serialized)
struct MetricsEndpointTests {
    static let ndjson = ["Content-Type": "application/x-ndjson"]

    func scrape(_ client: TestHTTPClient, token: String? = nil) async throws -> PrometheusText {
        let answer = try await client.send("GET", "/metrics", headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        return try PrometheusText(answer.text)
    }

    @Test func theExpositionParsesAndEveryFamilyHasHelpAndType() async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            _ = try await client.send("GET", "/api/overview")
            let metrics = try await scrape(client)
            let expected = [
                "passconsole_events_ingested_total": "counter", "passconsole_events_dropped_total": "counter",
                "passconsole_ingest_errors_total": "counter", "passconsole_live_clients": "gauge",
                "passconsole_live_resyncs_total": "counter", "passconsole_queue_depth": "gauge",
                "passconsole_http_request_duration_seconds": "histogram",
            ]
            for (family, type) in expected {
                #expect(metrics.types[family] == type, "\(family)")
                #expect(metrics.help[family]?.isEmpty == false, "\(family) has no HELP")
            }
            for queue in ["event_batcher", "ingest_gate_running", "ingest_gate_waiting", "live_held"] {
                #expect(metrics.value("passconsole_queue_depth", ["queue": queue]) != nil, "queue \(queue)")
            }
            #expect(metrics.value("passconsole_live_clients") == 0)
        }
    }

    @Test func ingestingNEventsAddsNToTheCounterAndBadLinesCountAsErrors() async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            let ingested = ["source": "reporters"]
            let before = try await scrape(client)
            let start = try #require(before.value("passconsole_events_ingested_total", ingested))
            let rejectedBefore = try #require(before.value("passconsole_ingest_errors_total", ["reason": "rejected_line"]))
            // When another process reports 37 events, then 5 more with two lines that are not events
            let first = try await client.send("POST", "/api/ingest", headers: Self.ndjson, body: EntitlementEvent.Wire.ndjson(HistoryFaults.events(37)))
            #expect(first.json["accepted"] as? Int == 37)
            var body = try EntitlementEvent.Wire.ndjson(HistoryFaults.events(5, start: 100))
            body.append(Data("{\"not\":\"an event\"}\nnonsense\n".utf8))
            #expect(try await client.send("POST", "/api/ingest", headers: Self.ndjson, body: body).json["accepted"] as? Int == 5)
            // Then the counter grew by exactly 42 and the errors by the two lines
            let after = try await scrape(client)
            #expect(after.value("passconsole_events_ingested_total", ingested) == start + 42)
            #expect(after.value("passconsole_ingest_errors_total", ["reason": "rejected_line"]) == rejectedBefore + 2)
        }
    }

    @Test func theDemoAppsEventsCountAsIngestedOnceWritten() async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            let demo = ["source": "demo_apps"]
            #expect(try await scrape(client).value("passconsole_events_ingested_total", demo) == 0)
            // When a demo app starts (setRequestor and its HTTP exchanges are events) and its batch is written
            try await fixture.start("news-ios")
            await fixture.console.batcher.flush()
            let written = await fixture.console.batcher.writtenCount
            #expect(written > 0)
            // Then the counter says as many, and says it again on the next scrape (no double counting)
            // (between the batcher's count before and after each scrape: the app may still be reporting)
            for _ in 0..<2 {
                let before = await fixture.console.batcher.writtenCount
                let counted = try #require(try await scrape(client).value("passconsole_events_ingested_total", demo))
                let after = await fixture.console.batcher.writtenCount
                #expect(counted >= Double(before) && counted <= Double(after), "\(before) ≤ \(counted) ≤ \(after)")
            }
        }
    }

    @Test func aRequestShowsInTheLatencyHistogramUnderItsRoutePattern() async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            let histogram = "passconsole_http_request_duration_seconds"
            let route = ["route": "/api/sessions/{id}", "method": "GET", "status": "4xx"]
            let before = try await scrape(client).value(histogram + "_count", route) ?? 0
            // When a page asks for a session that does not exist (a 404 under a pattern with a parameter)
            #expect(try await client.send("GET", "/api/sessions/\(UUID().uuidString)").status == 404)
            let metrics = try await scrape(client)
            // Then it is counted under the route's pattern, not its raw path
            #expect(metrics.value(histogram + "_count", route) == before + 1)
            #expect(!metrics.samples.contains { $0.labels["route"]?.contains("-") == true }, "a raw path became a label")
            // And the buckets are cumulative up to +Inf, which equals the count
            let buckets = metrics.all(histogram + "_bucket", route).sorted { Double($0.labels["le"]!)! < Double($1.labels["le"]!)! }
            #expect(buckets.count >= 10)
            #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.value <= $1.value })
            #expect(buckets.last?.labels["le"] == "+Inf" && buckets.last?.value == before + 1)
            #expect((metrics.value(histogram + "_sum", route) ?? -1) >= 0)
            // And a scrape counts itself afterwards, under its own route
            let again = try await scrape(client)
            #expect((again.value(histogram + "_count", ["route": "/metrics", "status": "2xx"]) ?? 0) >= 1)
        }
    }

    @Test func aLiveClientShowsInTheGaugeWhileConnected() async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            let port = try #require(URLComponents(string: fixture.console.baseURL)?.port)
            // A real SSE client on its own connection
            let connection = try RawConnection(port: UInt16(port))
            connection.send("GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
            #expect(await connection.read(until: "retry:").contains("200"))
            #expect(try await scrape(client).value("passconsole_live_clients") == 1)
            // When it hangs up, the gauge goes back to 0 (the next heartbeat or publish notices)
            connection.closeNow()
            var clients = try await scrape(client).value("passconsole_live_clients")
            for _ in 0..<100 where clients != 0 {
                fixture.console.live.state.withLock { $0.clients.values.forEach { $0.subscription.sendComment("probe") } }
                try await Task.sleep(for: .milliseconds(100))
                clients = try await scrape(client).value("passconsole_live_clients")
            }
            #expect(clients == 0)
        }
    }

    @Test func withAnAccessTokenMetricsNeedItAndHealthzDoesNot() async throws {
        try await ConsoleFixture.with(accessToken: "metrics-token") { fixture in
            try fixture.console.start()
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            // Judged on the normalised path: no spelling of /metrics passes without the token
            for path in ["/metrics", "//metrics", "/./metrics", "/%6detrics", "/METRICS", "/metrics."] {
                #expect(try await client.send("GET", path).status == 401, "\(path)")
            }
            #expect(try await client.send("GET", "/metrics?token=wrong").status == 401)
            _ = try await scrape(client, token: "metrics-token")
            #expect(try await client.send("GET", "/healthz").status == 200)
        }
    }
}
