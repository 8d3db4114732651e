import Foundation
import Testing

/// What schemathesis found against `/openapi.json` (`make fuzz`, seed 14): requests the document calls invalid that
/// were accepted, and valid ones refused. Each is now answered as the document says.
struct SchemaFindingsAPITests {
    static let team = "phone/team:TEAM1234"

    @Test func aClearScopeNameSentAsNullIsRefusedNotReadAsLeftOut() async throws {
        try await ConsoleFixture.with { fixture in
            // `{"mvpdID": null}` read as "no MVPD" would widen the clear to the whole domain.
            let answer = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)","mvpdID":null,"dryRun":true}"#)
            #expect(answer.status == 400)
            #expect(answer.text.contains("mvpdID"))
            // Left out, and the dependency of an MVPD on its Programmer, still as before.
            #expect(await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)","dryRun":true}"#).status == 200)
            #expect(await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)","mvpdID":"Dish","dryRun":true}"#).status == 400)
        }
    }

    @Test func forceAuthnIsTrueOrFalseAndAResourceIsNeededWhereTheCallTakesOne() async throws {
        try await ConsoleFixture.with { fixture in
            try await fixture.start("news-ios")
            let bad = await fixture.post("/api/apps/news-ios/call", json: #"{"method":"getAuthentication","arguments":{"forceAuthn":"banana"}}"#)
            #expect(bad.status == 400)
            #expect(bad.json["error"] as? String == "invalid_argument")
            let noResource = await fixture.post("/api/apps/news-ios/call", json: #"{"method":"getAuthorization","arguments":{"resource":""}}"#)
            #expect(noResource.status == 400)
            // Any call: forceAuthn is a flag or nothing (it was only checked where it is used).
            #expect(await fixture.post("/api/apps/news-ios/call", json: #"{"method":"checkAuthentication","arguments":{"forceAuthn":"x"}}"#).status == 400)
            // null stands for an empty argument, as the document says.
            #expect(await fixture.post("/api/apps/news-ios/call", json: #"{"method":"checkAuthentication","arguments":{"opCode":null}}"#).status == 202)
        }
    }

    @Test func replayCredentialsAreGivenOrLeftOutNeverNull() async throws {
        try await ConsoleFixture.with { fixture in
            #expect(await fixture.post("/api/apps/news-ios/start").status == 200)
            try await fixture.waitForEvents(atLeast: 1)
            var sessions: [[String: Any]] = []
            for _ in 0..<100 where sessions.isEmpty {
                sessions = await fixture.get("/api/sessions").json["sessions"] as? [[String: Any]] ?? []
                if sessions.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
            }
            let id = try #require(sessions.first?["id"] as? String)
            // A null password beside a username read as "no credentials" and ran the replay as someone else.
            let answer = await fixture.post("/api/sessions/\(id)/replay", json: #"{"username":"dave","password":null}"#)
            #expect(answer.status == 400)
            #expect(answer.json["error"] as? String == "invalid_json")
            #expect(await fixture.post("/api/sessions/\(id)/replay", json: #"{"subscribers":null}"#).status == 400)
        }
    }

    @Test func everyRevealSpellingTheServerTakesIsInTheDocument() async throws {
        try await ConsoleFixture.with { fixture in
            for value in ["true", "1", "yes", "personal", "false", "0", "none"] {
                #expect(await fixture.get("/api/events/export?reveal=\(value)").status == 200, "\(value)")
            }
            #expect(await fixture.get("/api/events/export?reveal=null").status == 400)
        }
        let url = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../Public/openapi.json")
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains(#""enum": [\n        "false",\n        "0""#) || text.contains(#""tokens""#))
    }

    @Test func theDocumentSaysWhatTheRoutesAnswer() throws {
        let url = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../Public/openapi.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        func responses(_ path: String, _ method: String) -> [String: Any] {
            ((paths[path]?[method] as? [String: Any])?["responses"] as? [String: Any]) ?? [:]
        }
        for (path, method) in [("/api/storage/clear", "post"), ("/api/storage/import", "post"), ("/api/storage/export", "get")] {
            #expect(responses(path, method)["404"] != nil, "\(path) documents its 404 for a domain of no device")
        }
        #expect(responses("/api/sessions/{id}/replay", "post")["422"] == nil, "a session that cannot be replayed is a 409")
        let clear = (((paths["/api/storage/clear"]?["post"] as? [String: Any])?["requestBody"] as? [String: Any])?["content"]
            as? [String: [String: Any]])?["application/json"]?["schema"] as? [String: Any]
        #expect((clear?["dependentRequired"] as? [String: [String]])?["mvpdID"] == ["requestorID"])
    }
}
