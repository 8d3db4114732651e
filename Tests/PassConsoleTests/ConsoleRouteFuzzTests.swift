import AccessEnabler
import Foundation
import MicroHTTP
import PassTestSupport
import Testing
@testable import PassConsole

/// Every console API route (and a static file) gets extreme and random values in each query and header input it
/// reads and each field of its JSON body, over real HTTP: no answer may be missing or a server error, and the console
/// must still answer afterwards. Routes and their inputs are enumerated, so a new one is covered as added.
struct ConsoleRouteFuzzTests {
    @Test func everyRouteSurvivesExtremeValuesInEveryInput() async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            // One stored session, so the session routes get past their lookup.
            let events = try ConsoleTrappingInputTests.event(1)
            let ingested = try await client.send("POST", "/api/ingest", headers: ["Content-Type": "application/x-ndjson"], body: events)
            try #require(ingested.status == 200, "\(ingested.text)")
            let session = try await #require(try fixture.console.history.sessions().first?.id.uuidString)
            let port = UInt16(try #require(URL(string: fixture.console.baseURL)?.port))
            let routes = fixture.console.registeredRoutes + [.init(method: "GET", pattern: "/index.html")]
            var fuzzer = RouteFuzzer(responder: fixture.console, port: port, routes: routes)
            let csrf = fixture.console.csrfToken
            fuzzer.baseHeaders = { _, _ in [("Host", "127.0.0.1:\(port)"), (AccessGuardHeader.csrf, csrf)] }
            fuzzer.baseValues = ["Host": "127.0.0.1:\(port)", AccessGuardHeader.csrf: csrf, "domain": "team:TEAM1234",
                                 "policy": "overwrite", "format": "ndjson", "with": session, "limit": "10", "q": ""]
            fuzzer.pathValues = ["id": "news-ios", "/api/sessions/{id} id": session, "/api/sessions/{id}/diff id": session,
                                 "/api/sessions/{id}/bundle id": session, "/api/sessions/{id}/replay id": session]
            fuzzer.baseBodies = ["POST /api/ingest": ("application/x-ndjson", try ConsoleTrappingInputTests.event(2))]
            let plans = await fuzzer.plans()
            #expect(plans.contains { $0.route.pattern == "/api/ingest" && $0.inputs.contains { $0.name == "X-PassConsole-Dropped" } })
            #expect(plans.contains { $0.route.pattern == "/api/events" && $0.inputs.contains { $0.name == "limit" } })
            let report = await fuzzer.run(plans: plans) {
                let answer = try? await client.get("/api/overview")
                return answer?.status == 200 ? nil : "the console stopped answering (\(answer?.status ?? 0))"
            }
            #expect(report.failures.isEmpty, "\(report.failures.prefix(30).joined(separator: "\n"))")
            #expect(report.routes == routes.count)
            print("console route fuzz: \(report.routes) routes, \(report.inputs) inputs, \(report.requests) requests, "
                + "\(report.failures.count) failures")
            #expect(try await client.get("/api/overview").status == 200)
            #expect(try await client.get("\(fixture.backendURL)/adobe-services/1.0/config/REF30").status == 200)
        }
    }
}
