import AccessEnabler
import Foundation
import PassBackend
import PassStorage
import Testing

/// The demo apps driven through the API, as the page drives them: the flow state, the callbacks, the storage grid.
@Suite(.serialized)
struct AppFlowAPITests {
    @Test func aLoginThroughThePageLightsEachStepAndFillsTheGrid() async throws {
        try await ConsoleFixture.with { fixture in
            // Given the news app started (setRequestor done)
            // When the person asks for authentication, picks Cablevision and signs in on the MVPD page
            try await fixture.signIn()
            // Then the flow ends on "status" with status 1 and the callbacks in the seeds' order
            let app = try await fixture.app("news-ios")
            let flow = try #require(app["flow"] as? [String: Any])
            #expect(flow["current"] as? String == "status")
            let names = (app["callbacks"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }.reversed()
                .filter { $0 != "sendTrackingData" }
            // (REF30 has Spectrum with Apple SSO: the phone's Apple dialog first; not signed in to any TV provider, it
            // closes and the SDK's picker follows — cookbook flow D)
            #expect(Array(names.prefix(6)) == [
                "setRequestorComplete", "presentTvProviderDialog", "dismissTvProviderDialog", "displayProviderDialog",
                "navigateToUrl", "setAuthenticationStatus",
            ])
            // And the grid shows a valid authN token of REF30/Cablevision with every rule passed, in the team's domain
            let storage = await fixture.get("/api/storage").json
            let domains = try #require(storage["domains"] as? [[String: Any]])
            let team = try #require(domains.first { $0["id"] as? String == "phone/team:TEAM1234" })
            #expect(team["apps"] as? [String] == ["com.example.news.ios", "com.example.news.sports"])
            let programmer = try #require((team["programmers"] as? [[String: Any]])?.first { $0["requestorID"] as? String == "REF30" })
            #expect(programmer["selectedMvpd"] as? String == "Cablevision")
            let cell = try #require((programmer["mvpds"] as? [[String: Any]])?.first)
            let authn = try #require(cell["authn"] as? [String: Any])
            #expect(authn["valid"] as? Bool == true)
            let verdicts = try #require(authn["verdicts"] as? [[String: Any]])
            #expect(verdicts.compactMap { $0["rule"] as? String } == ["ttl", "issuer", "device", "version", "requestor"])
            #expect(verdicts.allSatisfy { $0["ok"] as? Bool == true })
            #expect((authn["preview"] as? String)?.contains("redacted") == true)
            #expect(!String(decoding: try JSONSerialization.data(withJSONObject: storage), as: UTF8.self).contains("<simpleAuthenticationToken>"))
        }
    }

    @Test func callsBeforeSetRequestorCompletesShowAsTheQueue() async throws {
        try await ConsoleFixture.with { fixture in
            // Given the backend answers the configuration slowly
            fixture.backend.faults.rules = [FaultRule(path: "*", latencyMs: 800)]
            // When the app starts and the page calls getAuthorization at once
            #expect(await fixture.post("/api/apps/news-ios/start").status == 200)
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            // Then the flow shows the call waiting in the queue
            try await fixture.waitForApp("news-ios") { app in
                let flow = app["flow"] as? [String: Any] ?? [:]
                return flow["current"] as? String == "queued" && (flow["queued"] as? [String] ?? []) == ["getAuthorization(news)"]
            }
            fixture.backend.faults.rules = []
        }
    }

    @Test func anExpiredAuthorizationTurnsItsTTLVerdictRedAndTheHealthCardSaysSo() async throws {
        try await ConsoleFixture.with { fixture in
            try await fixture.signIn()
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await fixture.waitForApp("news-ios") { ($0["flow"] as? [String: Any])?["detail"] as? String == "Authorized for news: media token delivered." }
            // When the console's clock passes the authZ TTL (1 h in the demo) but not the authN TTL
            fixture.clock.advance(by: 2 * 3600)
            // Then the authZ token's ttl verdict fails and says how long ago it expired
            let storage = await fixture.get("/api/storage").json
            let domains = storage["domains"] as? [[String: Any]] ?? []
            let cell = ((domains.first?["programmers"] as? [[String: Any]])?.first?["mvpds"] as? [[String: Any]])?.first
            let authz = try #require((cell?["authz"] as? [[String: Any]])?.first)
            #expect(authz["valid"] as? Bool == false)
            let ttl = try #require((authz["verdicts"] as? [[String: Any]])?.first { $0["rule"] as? String == "ttl" })
            #expect(ttl["ok"] as? Bool == false)
            #expect((ttl["text"] as? String)?.hasPrefix("Expired 1 h") == true)
            // And the session's health card tells support staff in words
            try await fixture.waitForEvents(atLeast: 20)
            let sessions = await fixture.get("/api/sessions?q=com.example.news.ios").json["sessions"] as? [[String: Any]] ?? []
            let id = try #require(sessions.first?["id"] as? String)
            let health = try #require(await fixture.get("/api/sessions/\(id)").json["health"] as? [String: Any])
            #expect((health["headline"] as? String)?.hasPrefix("Signed in with Cablevision for REF30 until") == true)
            #expect((health["lines"] as? [String] ?? []).contains { $0.hasPrefix("'news' authorization expired 1 h") })
        }
    }

    @Test func lookingAheadJudgesTheTokensLaterWithoutTouchingStorageOrTheClock() async throws {
        try await ConsoleFixture.with { fixture in
            try await fixture.signIn()
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await fixture.waitForApp("news-ios") { ($0["flow"] as? [String: Any])?["detail"] as? String == "Authorized for news: media token delivered." }
            let storageFile = try DeviceFolder(root: fixture.root.appendingPathComponent("phone")).teamShared(teamID: "TEAM1234")
            _ = await fixture.get("/api/storage")  // waits until the apps' storage writes are on disk
            let before = try storageFile.read()
            func firstCell(_ json: [String: Any]) -> [String: Any]? {
                let domains = json["domains"] as? [[String: Any]] ?? []
                return ((domains.first?["programmers"] as? [[String: Any]])?.first?["mvpds"] as? [[String: Any]])?.first
            }
            func ttlOK(_ token: [String: Any]?) -> Bool? {
                ((token?["verdicts"] as? [[String: Any]])?.first { $0["rule"] as? String == "ttl" })?["ok"] as? Bool
            }
            // When support staff look two hours ahead (past the 1 h authorization, within the 24 h sign-in)
            let ahead = await fixture.get("/api/storage?ahead=7200")
            #expect(ahead.status == 200)
            #expect(ahead.json["lookAheadSeconds"] as? Int == 7200)
            let judgedAt = try #require((ahead.json["now"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
            #expect(abs(judgedAt.timeIntervalSince(fixture.clock.now()) - 7200) < 2)
            // Then the authorization is judged expired and the sign-in still valid
            let cell = firstCell(ahead.json)
            #expect(ttlOK((cell?["authz"] as? [[String: Any]])?.first) == false)
            #expect(ttlOK(cell?["authn"] as? [String: Any]) == true)
            // And nothing changed: storage bytes, and the present verdicts
            #expect(try storageFile.read() == before)
            let present = await fixture.get("/api/storage").json
            #expect(present["lookAheadSeconds"] as? Int == 0)
            #expect(ttlOK((firstCell(present)?["authz"] as? [[String: Any]])?.first) == true)
            // A look-ahead that is not a whole number of seconds in range is refused in words
            for bad in ["-5", "soon", "1.5", "99999999999"] {
                let answer = await fixture.get("/api/storage?ahead=\(bad)")
                #expect(answer.status == 400, "\(bad)")
                #expect(answer.json["error"] as? String == "bad_look_ahead")
            }
        }
    }

    @Test func unknownAppsAndMethodsAreClearErrors() async throws {
        try await ConsoleFixture.with { fixture in
            #expect(await fixture.post("/api/apps/nope/start").status == 404)
            let notRunning = await fixture.post("/api/apps/news-ios/call", json: #"{"method":"checkAuthentication"}"#)
            #expect(notRunning.status == 409)
            #expect(notRunning.json["error"] as? String == "app_not_running")
            #expect(await fixture.post("/api/apps/news-ios/start").status == 200)
            let unknown = await fixture.post("/api/apps/news-ios/call", json: #"{"method":"rm -rf"}"#)
            #expect(unknown.status == 400)
            #expect(unknown.json["error"] as? String == "unknown_method")
            let noLogin = await fixture.post("/api/apps/news-ios/login", json: #"{"username":"a","password":"b"}"#)
            #expect(noLogin.status == 409)
        }
    }
}
