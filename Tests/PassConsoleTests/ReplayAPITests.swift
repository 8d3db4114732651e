import AccessEnabler
import Foundation
import HistoryTestSupport
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

    @Test(arguments: HistoryBackend.allCases) func aRecordedLoginAndAuthorizationReplaysStepForStep(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            let recorded = try await recordedSession(fixture)
            // When support replays it without credentials
            let answer = await fixture.post("/api/sessions/\(recorded)/replay")
            try #require(answer.status == 201, "\(answer.text)")
            let json = answer.json
            // Then a new session ran the same calls, signed in as the MVPD's demo subscriber, and matches step for step
            let replay = try #require(json["replay"] as? String)
            #expect(replay != recorded)
            #expect(json["signedInAs"] as? String == "alice (the recorded user at Cablevision)")
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

    @Test(arguments: HistoryBackend.allCases) func aWrongPasswordIsNamedAndTheComparisonShowsWhereTheRunsPart(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
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

    @Test(arguments: HistoryBackend.allCases) func whatCannotBeReplayedIsRefusedInWords(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
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
            // The session's own nature refuses it, not the request: 409, as for any state the request conflicts with.
            #expect(refused.status == 409)
            #expect(refused.json["error"] as? String == "replay_needs_second_screen")
        }
    }

    // MARK: - The recorded user's own subscriber, per MVPD

    /// Waits until the news app's callbacks include `name` for `resource`.
    func waitForAnswer(_ fixture: ConsoleFixture, _ names: [String], _ resource: String) async throws {
        try await fixture.waitForApp("news-ios") { (($0["callbacks"] as? [[String: Any]]) ?? []).contains {
            names.contains($0["name"] as? String ?? "") && "\($0)".contains(resource) } }
    }

    /// Logs the news app out, then signs it in at `mvpd` as `user` in the same session.
    func signInAgain(_ fixture: ConsoleFixture, mvpd: String, user: String) async throws {
        try await fixture.call("news-ios", "logout")
        try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == false }
        try await fixture.call("news-ios", "getAuthentication")
        try await fixture.waitForApp("news-ios") { pending($0)["providerDialog"] is [Any] }
        try await fixture.call("news-ios", "setSelectedProvider", ["mvpd": mvpd])
        try await fixture.waitForApp("news-ios") { pending($0)["loginURL"] is String }
        let login = await fixture.post("/api/apps/news-ios/login", json: #"{"username":"\#(user)","password":"\#(user)123"}"#)
        try #require(login.status == 202, "\(login.text)")
        try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == true && ($0["flow"] as? [String: Any])?["current"] as? String == "status" }
    }

    /// The session's ID once the history holds its events up to now.
    func recorded(_ fixture: ConsoleFixture) async throws -> String {
        let id = try #require(try await fixture.app("news-ios")["sessionID"] as? String)
        try await fixture.waitUntilRecorded(atLeast: 20)
        return id
    }

    @Test(arguments: HistoryBackend.allCases) func davesSessionReplaysAsDaveAndIsDeniedAsHeWasEvenAfterCarolSignedInOnThatPhone(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given dave (kids only) signed in with DISH and refused `sports`
            try await fixture.signIn(mvpd: "Dish", user: "dave", password: "dave123")
            try await fixture.call("news-ios", "getAuthorization", ["resource": "sports"])
            try await waitForAnswer(fixture, ["tokenRequestFailed"], "sports")
            let daves = try await recorded(fixture)
            // and later carol signed in with DISH on the same phone, in a new run of the app
            try await fixture.call("news-ios", "logout")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == false }
            #expect(await fixture.post("/api/apps/news-ios/stop").status == 200)
            try await fixture.signIn(mvpd: "Dish", user: "carol", password: "carol123")
            // When dave's session is replayed without credentials
            let answer = await fixture.post("/api/sessions/\(daves)/replay")
            try #require(answer.status == 201, "\(answer.text)")
            // Then it signed in as dave, and his 403 is a 403 again: the runs match step for step
            #expect(answer.json["signedInAs"] as? String == "dave (the recorded user at Dish)")
            let steps = answer.json["steps"] as? [[String: Any]] ?? []
            #expect(steps.allSatisfy { $0["note"] == nil }, "\(steps)")
            let counts = try #require((answer.json["diff"] as? [String: Any])?["counts"] as? [String: Int])
            #expect(counts["changed"] == 0 && counts["onlyA"] == 0 && counts["onlyB"] == 0, "\(answer.json["diff"] ?? "")")
            let audit = await fixture.get("/api/audit").json["entries"] as? [[String: Any]] ?? []
            let replayDetail = audit.first { $0["action"] as? String == "replay" }?["detail"] as? String ?? ""
            #expect(replayDetail.contains("signing in as dave at Dish"), "\(audit.prefix(3))")
        }
    }

    @Test(arguments: HistoryBackend.allCases) func eachMVPDInOneReplaySignsInAsItsOwnRecordedSubscriber(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given one run that signed in as dave with DISH, logged out, then signed in as bob with Spectrum
            try await fixture.signIn(mvpd: "Dish", user: "dave", password: "dave123")
            try await signInAgain(fixture, mvpd: "Spectrum", user: "bob")
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await waitForAnswer(fixture, ["setToken"], "news")
            let id = try await recorded(fixture)
            // When it is replayed
            let answer = await fixture.post("/api/sessions/\(id)/replay")
            try #require(answer.status == 201, "\(answer.text)")
            // Then each MVPD's sign-in used that MVPD's recorded subscriber, and both sign-ins went through
            let subscribers = (answer.json["subscribers"] as? [[String: Any]] ?? []).map { "\($0["mvpd"] ?? "")=\($0["username"] ?? "")" }
            #expect(subscribers == ["Dish=dave", "Spectrum=bob"])
            let signIns = (answer.json["steps"] as? [[String: Any]] ?? []).filter { $0["method"] as? String == "signIn" }
            #expect(signIns.count == 2)
            #expect(signIns.allSatisfy { $0["note"] == nil }, "\(signIns)")
        }
    }

    @Test(arguments: HistoryBackend.allCases) func whenTheRecordingDoesNotTellWhoSignedInTheReplayAsksWithTheCandidates(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given one run that signed in at DISH as dave, then as carol: who "the" DISH user is cannot be told
            try await fixture.signIn(mvpd: "Dish", user: "dave", password: "dave123")
            try await signInAgain(fixture, mvpd: "Dish", user: "carol")
            let id = try await recorded(fixture)
            let sessionsBefore = await fixture.get("/api/sessions").json["sessions"] as? [[String: Any]] ?? []
            // When it is replayed without a choice, the console asks instead of picking someone
            let asked = await fixture.post("/api/sessions/\(id)/replay")
            #expect(asked.status == 409)
            #expect(asked.json["error"] as? String == "replay_needs_subscriber")
            let candidates = try #require(asked.json["candidates"] as? [[String: Any]])
            #expect(candidates.count == 1)
            #expect(candidates.first?["mvpd"] as? String == "Dish")
            #expect(candidates.first?["usernames"] as? [String] == ["carol", "dave"])
            #expect((await fixture.get("/api/sessions").json["sessions"] as? [[String: Any]] ?? []).count == sessionsBefore.count)
            // With the operator's pick, it runs as that subscriber; a name the MVPD does not have is refused
            let bad = await fixture.post("/api/sessions/\(id)/replay", json: #"{"subscribers":{"Dish":"bob"}}"#)
            #expect(bad.status == 400)
            #expect(bad.json["error"] as? String == "unknown_subscriber")
            let picked = await fixture.post("/api/sessions/\(id)/replay", json: #"{"subscribers":{"Dish":"dave"}}"#)
            try #require(picked.status == 201, "\(picked.text)")
            #expect(picked.json["signedInAs"] as? String == "dave (picked for Dish)")
        }
    }
}
