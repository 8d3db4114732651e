import Foundation
import MicroHTTP
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// Numbers that used to stop the whole process through Swift's trapping arithmetic and conversions (issue #14):
/// each is now a `400` naming the parameter, nothing changes, and the backend keeps serving.
struct TrappingInputTests {
    static func expectInvalid(_ answer: HTTPResult, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(answer.status == 400, "\(answer.text)", sourceLocation: sourceLocation)
        #expect(answer.json["error"] as? String == "invalid_parameter", "\(answer.text)", sourceLocation: sourceLocation)
        #expect((answer.json["message"] as? String)?.contains(name) == true, "\(answer.text)", sourceLocation: sourceLocation)
    }

    @Test(arguments: ["-1", "0", String(Int.min), String(Int.max), "99999999999999999999", "1e3", "NaN", "ten"])
    func activationsLimitOutOfRangeIs400(limit: String) async throws {
        try await BackendFixture.with { _, client async throws in
            Self.expectInvalid(try await client.get("/admin/activations?limit=\(TestHTTPClient.escape(limit))"), "limit")
            #expect(try await client.get("/admin/activations?limit=5").status == 200)
            try await BadInputTests.expectStillServing(client)
        }
    }

    @Test(arguments: [
        #"{"advanceSeconds":1e300}"#, #"{"offsetSeconds":-1e300}"#, #"{"advanceSeconds":-1e300}"#,
        #"{"offsetSeconds":1e300}"#, #"{"offsetSeconds":3153600000,"advanceSeconds":3153600000}"#,
    ])
    func clockMovedOutOfRangeIs400AndTheClockStays(body: String) async throws {
        try await BackendFixture.with { service, client async throws in
            let answer = try await client.post("/admin/clock", json: Data(body.utf8))
            Self.expectInvalid(answer, "Seconds")
            #expect(service.clock.offsetSeconds == 0)
            #expect(try await client.get("/admin/clock").status == 200)
            try await BadInputTests.expectStillServing(client)
        }
    }

    @Test func advancingPastTheRangeInStepsIsRefusedAtTheStepThatLeavesIt() async throws {
        try await BackendFixture.with { service, client async throws in
            let year = 365.0 * 86400
            #expect(try await client.post("/admin/clock", json: Data(#"{"advanceSeconds":\#(60 * year)}"#.utf8)).status == 200)
            Self.expectInvalid(try await client.post("/admin/clock", json: Data(#"{"advanceSeconds":\#(60 * year)}"#.utf8)), "Seconds")
            #expect(service.clock.offsetSeconds == 60 * year)
            try await BadInputTests.expectStillServing(client)
        }
    }

    @Test(arguments: [
        (#"{"clockOffsetSeconds":9223372036854775807}"#, "clockOffsetSeconds"),
        (#"{"clockOffsetSeconds":-9223372036854775808}"#, "clockOffsetSeconds"),
        (#"{"rules":[{"path":"*","status":-1}]}"#, "status"),
        (#"{"rules":[{"path":"*","status":9223372036854775807}]}"#, "status"),
        (#"{"rules":[{"path":"*","latencyMs":9223372036854775807}]}"#, "latencyMs"),
        (#"{"rules":[{"path":"*","remaining":-9223372036854775808}]}"#, "remaining"),
        (#"{"throttle":{"requestsPerSecond":1e300,"burst":10}}"#, "requestsPerSecond"),
        (#"{"throttle":{"requestsPerSecond":1,"burst":-1}}"#, "burst"),
        (#"{"mvpdOverrides":{"Dish":{"authnTTL":9223372036854775807}}}"#, "authnTTL"),
        (#"{"mvpdOverrides":{"Dish":{"authzTTL":-1}}}"#, "authzTTL"),
    ])
    func faultSettingsOutOfRangeAre400AndChangeNothing(body: String, field: String) async throws {
        try await BackendFixture.with { service, client async throws in
            let before = service.faults
            let answer = try await client.send("PUT", "/admin/faults", headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            Self.expectInvalid(answer, field)
            #expect(service.faults == before)
            try await BadInputTests.expectStillServing(client)
        }
    }

    @Test(arguments: [-1, 0, 99, 600, Int.max, Int.min])
    func faultRuleWithAnImpossibleStatusIs400(status: Int) async throws {
        try await BackendFixture.with { service, client async throws in
            let answer = try await client.post("/admin/faults/rules", json: Data(#"{"path":"*","status":\#(status)}"#.utf8))
            Self.expectInvalid(answer, "status")
            #expect(service.faults.rules.isEmpty)
            try await BadInputTests.expectStillServing(client)
        }
    }

    @Test func regcodeTTLOutOfRangeIsARESTErrorBody() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let path = "/reggie/v1/REF30/regcode"
            for ttl in [String(Int.max), "-1", "1e300", "NaN"] {
                let answer = try await client.send("POST", path + "?deviceId=tv-1&ttl=\(ttl)",
                    headers: ["Authorization": app.authorization("POST", path), "Accept": "application/json"])
                #expect(answer.status == 400, "\(ttl): \(answer.text)")
                #expect(answer.json["status"] as? Int == 400, "\(answer.text)")
                #expect(answer.json["message"] is String && answer.json["details"] is String, "\(answer.text)")
            }
            try await BadInputTests.expectStillServing(client)
        }
    }

    @Test func datesBeyondSixtyFourBitsOfMillisecondsSaturate() {
        #expect(EpochMilliseconds.from(Date(timeIntervalSince1970: 1e300)) == .max)
        #expect(EpochMilliseconds.from(Date(timeIntervalSince1970: -1e300)) == .min)
        #expect(EpochMilliseconds.from(Date(timeIntervalSince1970: .nan)) == 0)
        #expect(EpochMilliseconds.from(Date(timeIntervalSince1970: 1.5)) == 1500)
    }

    @Test func tokenDatesWithAbsurdYearsAreNotDates() {
        #expect(TokenDate.parse("999999999999999999/01/01 00:00:00 GMT") == nil)
        #expect(TokenDate.parse("0/01/01 00:00:00 GMT") == nil)
        #expect(TokenDate.parse("2030/01/01 00:00:00 GMT") != nil)
    }
}
