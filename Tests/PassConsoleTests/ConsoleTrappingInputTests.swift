import AccessEnabler
import Foundation
import MicroHTTP
import PassTestSupport
import Testing
@testable import PassConsole

/// Numbers sent to the console that used to stop the process (console, backend and demo apps share it) through
/// Swift's trapping arithmetic (issue #14): each is a `400 invalid_parameter` now, and the console keeps answering.
struct ConsoleTrappingInputTests {
    static func event(_ sequence: Int) throws -> Data {
        try EntitlementEvent.Wire.ndjson([EntitlementEvent(sequence: sequence, timestamp: Date(), sessionID: UUID(),
            deviceID: "remote-device", app: AppIdentity(bundleID: "com.remote.app", teamID: "REMOTE1"), requestorID: "REF30",
            mvpdID: nil, kind: .apiCall(name: "call", arguments: [:]))])
    }

    static func expectInvalid(_ status: Int, _ json: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == 400, "\(json)", sourceLocation: sourceLocation)
        #expect(json["error"] as? String == "invalid_parameter", "\(json)", sourceLocation: sourceLocation)
    }

    /// The reproduction from the issue, over real HTTP: `X-PassConsole-Dropped: Int.max`, twice.
    @Test func droppedCountOfIntMaxSentTwiceIsRefusedAndTheConsoleKeepsCounting() async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            for _ in 0..<2 {
                let answer = try await client.send("POST", "/api/ingest", headers: ["Content-Type": "application/x-ndjson",
                    "X-PassConsole-Dropped": String(Int.max)], body: try Self.event(1))
                Self.expectInvalid(answer.status, answer.json)
            }
            for value in ["-1", String(Int.min), "1e300", "NaN", "9223372036854775808"] {
                let answer = try await client.send("POST", "/api/ingest", headers: ["Content-Type": "application/x-ndjson",
                    "X-PassConsole-Dropped": value], body: try Self.event(2))
                Self.expectInvalid(answer.status, answer.json)
            }
            let counted = try await client.send("POST", "/api/ingest", headers: ["Content-Type": "application/x-ndjson",
                "X-PassConsole-Dropped": "1000000000"], body: try Self.event(3))
            #expect(counted.status == 200, "\(counted.text)")
            let overview = try await client.get("/api/overview").json["counts"] as? [String: Any]
            #expect(overview?["ingestDropped"] as? Int == 1_000_000_000)
        }
    }

    @Test func theDroppedCounterSaturatesInsteadOfOverflowing() {
        #expect(Console.saturatingSum(.max, 1_000_000_000) == .max)
        #expect(Console.saturatingSum(.max - 1, .max) == .max)
        #expect(Console.saturatingSum(2, 3) == 5)
    }

    @Test(arguments: [
        "/api/events?limit=-1", "/api/events?limit=\(Int.min)", "/api/events?limit=\(Int.max)", "/api/events?limit=0",
        "/api/events?limit=NaN", "/api/events?before=-1", "/api/events?after=\(Int.min)", "/api/events?after=1e300",
        "/api/audit?limit=-1", "/api/audit?limit=\(Int.min)", "/api/audit?limit=99999999999999999999",
    ])
    func pagingNumbersOutOfRangeAre400(path: String) async throws {
        try await ConsoleFixture.with { fixture in
            let answer = await fixture.get(path)
            Self.expectInvalid(answer.status, answer.json)
            #expect(await fixture.get("/api/events?limit=5").status == 200)
        }
    }

    @Test(arguments: ["since:-1e300d", "since:-nand", "until:-infh", "since:-1e17s", "since:--5m"])
    func relativeTimesBeyondAHundredYearsAreAnInvalidFilter(query: String) async throws {
        try await ConsoleFixture.with { fixture in
            let answer = await fixture.get("/api/events?q=" + FormEncoding.escape(query))
            #expect(answer.status == 400, "\(answer.text)")
            #expect(answer.json["error"] as? String == "invalid_filter", "\(answer.text)")
        }
    }

    @Test func aLastEventIDOutOfRangeIs400() async throws {
        try await ConsoleFixture.with { fixture in
            let answer = await fixture.get("/api/events/stream", headers: [("Host", "127.0.0.1:8080"), ("Last-Event-ID", "-5")])
            Self.expectInvalid(answer.status, answer.json)
        }
    }

    @Test func durationsInWordsTakeAnyNumber() {
        #expect(Duration.words(.nan) == "0 s")
        #expect(Duration.words(1e300).contains(" d"))
        #expect(Duration.words(-.infinity) == "-1000000000000000 s")
        #expect(Duration.words(90) == "1 min")
    }
}
