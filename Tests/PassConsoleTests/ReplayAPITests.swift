import AccessEnabler
import Foundation
import Testing

/// POST /api/sessions/{id}/replay: a recorded session run again on a scratch device against the local backend.
@Suite(.serialized)
struct ReplayAPITests {
    /// Signs the news app in with alice, authorizes `news`, and returns the recorded session's ID once the history has it.
    func recordedSession(_ fixture: ConsoleFixture) async throws -> String {
        try await fixture.signIn()
        try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
        try await fixture.waitForApp("news-ios") { ($0["flow"] as? [String: Any])?["detail"] as? String == "Authorized for news: media token delivered." }
        let id = try #require(try await fixture.app("news-ios")["sessionID"] as? String)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let events = await fixture.get("/api/events?q=session:\(id)&limit=200").json["events"] as? [[String: Any]] ?? []
            if events.contains(where: { ($0["summary"] as? String ?? "").contains("setToken") }) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return id
    }

    @Test func aRecordedLoginAndAuthorizationReplaysStepForStep() async throws {
        try await ConsoleFixture.with { fixture in
            let recorded = try await recordedSession(fixture)
            // When support replays it without credentials
            let answer = await fixture.post("/api/sessions/\(recorded)/replay")
            try #require(answer.status == 201, "\(answer.text)")
            let json = answer.json
            // Then a new session ran the same calls, signed in as the MVPD's demo subscriber, and matches step for step
            let replay = try #require(json["replay"] as? String)
            #expect(replay != recorded)
            #expect(json["signedInAs"] as? String == "alice (demo subscriber of Cablevision)")
            let steps = (json["steps"] as? [[String: Any]] ?? []).compactMap { $0["method"] as? String }
            #expect(steps == ["setRequestor", "getAuthentication", "setSelectedProvider", "signIn", "getAuthorization"])
            #expect((json["steps"] as? [[String: Any]] ?? []).allSatisfy { $0["note"] == nil }, "\(json["steps"] ?? "")  \((json["diff"] as? [String: Any])?["verdict"] ?? "")")
            let diff = try #require(json["diff"] as? [String: Any])
            let counts = try #require(diff["counts"] as? [String: Int])
            #expect(counts["changed"] == 0 && counts["onlyA"] == 0 && counts["onlyB"] == 0, "\(diff["verdict"] ?? "")")
            #expect((counts["same"] ?? 0) > 10)
            // And the replay is a session like any other, signed in, in the history and the audit log
            let detail = await fixture.get("/api/sessions/\(replay)")
            #expect(detail.status == 200)
            let audit = await fixture.get("/api/audit").json["entries"] as? [[String: Any]] ?? []
            #expect(audit.contains { $0["action"] as? String == "replay" && ($0["detail"] as? String ?? "").contains(recorded) })
        }
    }

    @Test func aWrongPasswordIsNamedAndTheComparisonShowsWhereTheRunsPart() async throws {
        try await ConsoleFixture.with { fixture in
            let recorded = try await recordedSession(fixture)
            let answer = await fixture.post("/api/sessions/\(recorded)/replay", json: #"{"username":"alice","password":"wrong"}"#)
            try #require(answer.status == 201, "\(answer.text)")
            let steps = answer.json["steps"] as? [[String: Any]] ?? []
            let signIn = try #require(steps.first { $0["method"] as? String == "signIn" })
            #expect((signIn["note"] as? String ?? "").contains("sign-in as alice failed"))
            let diff = try #require(answer.json["diff"] as? [String: Any])
            #expect((diff["counts"] as? [String: Int])?["onlyA"] ?? 0 > 0)
            #expect((diff["verdict"] as? String ?? "").isEmpty == false)
        }
    }

    @Test func whatCannotBeReplayedIsRefusedInWords() async throws {
        try await ConsoleFixture.with { fixture in
            #expect(await fixture.post("/api/sessions/\(UUID().uuidString)/replay").json["error"] as? String == "unknown_session")
            let recorded = try await recordedSession(fixture)
            let half = await fixture.post("/api/sessions/\(recorded)/replay", json: #"{"username":"alice"}"#)
            #expect(half.status == 400)
            #expect(half.json["error"] as? String == "incomplete_credentials")
            // A tvOS session: its sign-in needs a person on a second screen
            #expect(await fixture.post("/api/apps/kids-tvos/start").status == 200)
            try await fixture.waitForApp("kids-tvos") { $0["sessionID"] is String }
            let tv = try #require(try await fixture.app("kids-tvos")["sessionID"] as? String)
            try await fixture.waitForEvents(atLeast: 1)
            var refused = await fixture.post("/api/sessions/\(tv)/replay")
            for _ in 0..<40 where refused.json["error"] as? String == "unknown_session" {
                try await Task.sleep(for: .milliseconds(50))
                refused = await fixture.post("/api/sessions/\(tv)/replay")
            }
            #expect(refused.status == 422)
            #expect(refused.json["error"] as? String == "replay_needs_second_screen")
        }
    }
}
