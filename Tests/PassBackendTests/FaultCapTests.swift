import Foundation
import MicroHTTP
import PassBackend
import PassTestSupport
import Testing

/// The faults have caps (issue #27 item 13: 150 rules of 900 KB each once took the process's memory ×3.7 and made
/// `GET /admin/faults` a 128 MB answer): too many entries or too long a text is a 422 naming the field, a body past
/// 1 MB a 413 before it is read, and the faults in force stay as they were.
struct FaultCapTests {
    static func rules(_ count: Int, path: String = "/api/v1/authorize") -> Data {
        let rules = (0..<count).map { _ in #"{"path":"\#(path)","status":503}"# }.joined(separator: ",")
        return Data(#"{"rules":[\#(rules)]}"#.utf8)
    }

    @Test func moreRulesThanTheCapIs422AndNothingChanges() async throws {
        try await BackendFixture.with { service, client async throws in
            #expect(try await client.send("PUT", "/admin/faults", headers: ["Content-Type": "application/json"], body: Self.rules(AdminInputBounds.maxRules)).status == 200)
            #expect(service.faults.rules.count == AdminInputBounds.maxRules)
            let over = try await client.send("PUT", "/admin/faults", headers: ["Content-Type": "application/json"], body: Self.rules(AdminInputBounds.maxRules + 1))
            #expect(over.status == 422, "\(over.text)")
            #expect(over.json["error"] as? String == "too_many_entries")
            #expect((over.json["message"] as? String)?.contains("at most \(AdminInputBounds.maxRules)") == true, "\(over.text)")
            let added = try await client.post("/admin/faults/rules", json: Data(#"{"path":"*","status":500}"#.utf8))
            #expect(added.status == 422, "one more rule by POST is refused the same way: \(added.text)")
            #expect(service.faults.rules.count == AdminInputBounds.maxRules, "the rules in force are kept")
            try await BadInputTests.expectStillServing(client)
        }
    }

    @Test(arguments: [
        (#"{"rules":[{"path":"LONG","status":503}]}"#, "path"),
        (#"{"denials":[{"resource":"news","message":"LONG"}]}"#, "denials.message"),
        (#"{"degradations":[{"mvpd":"LONG","rule":"AuthZAll"}]}"#, "degradations.mvpd"),
        (#"{"refuseEmbeddedBrowsers":["LONG"]}"#, "refuseEmbeddedBrowsers"),
        (#"{"mvpdOverrides":{"LONG":{"authnTTL":60}}}"#, "mvpdOverrides"),
    ])
    func aTextPastTheCapIs422NamingTheField(template: String, field: String) async throws {
        try await BackendFixture.with { service, client async throws in
            let long = String(repeating: "x", count: AdminInputBounds.maxText + 1)
            let answer = try await client.send("PUT", "/admin/faults", headers: ["Content-Type": "application/json"], body: Data(template.replacingOccurrences(of: "LONG", with: long).utf8))
            #expect(answer.status == 422, "\(answer.text)")
            #expect(answer.json["error"] as? String == "text_too_long")
            #expect((answer.json["message"] as? String)?.hasPrefix(field) == true, "\(answer.text)")
            #expect(service.faults == service.configuration.faults, "nothing changed")
            let fits = String(repeating: "x", count: AdminInputBounds.maxText)
            #expect(try await client.send("PUT", "/admin/faults", headers: ["Content-Type": "application/json"], body: Data(template.replacingOccurrences(of: "LONG", with: fits).utf8)).status == 200)
        }
    }

    @Test func aBodyPastOneMegabyteIs413BeforeItIsRead() async throws {
        try await BackendFixture.with { service, client async throws in
            let big = Data(#"{"rules":[{"path":"\#(String(repeating: "x", count: AdminInputBounds.maxBodySize))","status":503}]}"#.utf8)
            let answer = try await client.send("PUT", "/admin/faults", headers: ["Content-Type": "application/json"], body: big)
            #expect(answer.status == 413, "\(answer.text)")
            #expect(service.faults.rules.isEmpty)
            try await BadInputTests.expectStillServing(client)
        }
    }
}
