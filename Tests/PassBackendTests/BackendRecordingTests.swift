import Foundation
import Locking
import MicroHTTP
import PassBackend
import PassConsole
import PassEvents
import PassHistory
import PassProtocol
import PassStorage
import PassTestSupport
import Testing

/// Issue #25 part 1: every exchange the backend serves becomes events in a console's history, joined per device into
/// sessions that support staff find by username, user ID, device ID and registration code, with the client's kind and a
/// health card that names what happened. Real HTTP on loopback, a real console over a real SQLite history.
@Suite("The backend's traffic becomes sessions")
struct BackendRecordingTests {
    /// A console (in-memory SQLite history, no demo apps) recording a backend served on 127.0.0.1.
    static func with(_ body: (Console, HistoryDatabase, BackendService, TestHTTPClient) async throws -> Void) async throws {
        let configuration = try BackendConfiguration.load(path: BackendFixture.configPath)
        let service = BackendService(configuration: configuration, logger: TestServer.logger)
        let relay = RelaySink()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try await TestServer.with(PassBackend(service: service, recording: relay)) { server, client in
            var settings = ConsoleConfiguration(device: DeviceFolder(root: root.appendingPathComponent("phone")), named: "phone")
            settings.port = 0
            settings.backendURL = server.baseURL
            let history = try HistoryDatabase.inMemory()
            let console = Console(configuration: settings, history: history, logger: TestServer.logger)
            try await console.prepare()
            relay.attach(console.servedEventSink)
            do {
                try await body(console, history, service, client)
                await console.shutdown()
            } catch {
                await console.shutdown()
                throw error
            }
        }
    }

    static func get(_ console: Console, _ path: String) async throws -> [String: Any] {
        let parts = path.split(separator: "?", maxSplits: 1)
        let request = Request(
            method: "GET", path: String(parts[0]), queryItems: parts.count > 1 ? FormEncoding.decode(String(parts[1])) : [],
            headers: [("Host", "127.0.0.1:8080")], body: Data(), remoteAddress: "127.0.0.1")
        let response = await console.respond(to: request)
        try #require(response.status.code == 200, "\(path): \(response.status.code) \(String(decoding: response.bodyData, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: response.bodyData) as? [String: Any])
    }

    /// The sessions a search finds, once it finds `count` (the recorder's events reach the history in batches).
    static func sessions(_ console: Console, _ query: String, count: Int = 1, where ready: ([String: Any]) -> Bool = { _ in true })
        async throws -> [[String: Any]]
    {
        var found: [[String: Any]] = []
        for _ in 0..<Int(TestTime.seconds(100)) {
            found = try await get(console, "/api/sessions?q=\(TestHTTPClient.escape(query))")["sessions"] as? [[String: Any]] ?? []
            if found.count >= count, found.allSatisfy(ready) { return found }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the search '\(query)' found \(found.count) sessions: \(found)")
        return found
    }

    /// The migration view's entry of `app` (a loop: `first(where:)` with a closure over these `[String: Any]` rows
    /// returned another row here, seen twice in this test).
    static func entry(_ apps: [[String: Any]], app: String) -> [String: Any]? {
        for entry in apps where entry["app"] as? String == app { return entry }
        return nil
    }

    /// A REST API v2 app of REF30 on `device`: registered (DCR), its access token and device identifier as headers.
    static func v2Headers(_ http: TestHTTPClient, device: String) async throws -> [String: String] {
        let registered = try await http.post("/o/client/register", json: Data(#"{"software_statement":"demo-software-statement"}"#.utf8))
        let clientID = try #require(registered.json["client_id"] as? String, "\(registered.text)")
        let secret = try #require(registered.json["client_secret"] as? String)
        let issued = try await http.post("/o/client/token", form: [("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", secret)])
        let token = try #require(issued.json["access_token"] as? String, "\(issued.text)")
        return ["Authorization": "Bearer \(token)", "AP-Device-Identifier": "fingerprint \(Data(device.utf8).base64EncodedString())"]
    }

    /// The session's health card, once it holds the verdict `id` (events reach the history in batches).
    static func card(
        _ console: Console, _ session: String, holding id: String, where ready: ([String: Any]) -> Bool = { _ in true }
    ) async throws -> (card: [String: Any], verdict: [String: Any]?) {
        var card: [String: Any] = [:]
        for _ in 0..<100 {
            card = (try await get(console, "/api/sessions/\(session)"))["health"] as? [String: Any] ?? [:]
            if let verdict = (card["verdicts"] as? [[String: Any]])?.first(where: { $0["id"] as? String == id }), ready(verdict) {
                return (card, verdict)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return (card, nil)
    }

    @Test("a web sign-in (device, code, SAML pages, session, authorize, shortAuthorize) is one session found by username, device, user ID and MVPD; a revocation is the TV provider signing her out")
    func webSignInIsOneSessionAndARevocationIsTheProvidersDoing() async throws {
        try await Self.with { console, history, _, http in
            var browser = WebVariantClient(http: http)
            _ = try await browser.registerDevice()
            _ = try await browser.registerClient()
            let code = try await browser.regcode()
            let media = try await browser.mediaToken(resource: "kids") { client in
                _ = try await client.signIn(mvpd: "Cablevision", username: "alice", password: "alice123", regcode: code)
            }
            guard case .success = media else { Issue.record("no media token: \(media)"); return }
            let guid = try #require(WebVariantClient.xmlText(browser.authn ?? "", "simpleTokenAuthenticationGuid"))

            let byName = try await Self.sessions(console, "alice") { $0["userID"] as? String == guid }
            try #require(byName.count == 1, "one session, not one per exchange: \(byName)")
            let session = byName[0]
            #expect(session["client"] as? String == "web")
            #expect(session["clientLabel"] as? String == "Web (JS)")
            #expect(session["mvpdID"] as? String == "Cablevision")
            #expect(session["requestorID"] as? String == "REF30")
            #expect(session["deviceID"] as? String == browser.deviceID)
            let id = try #require(session["id"] as? String)
            for term in [browser.deviceID, guid, code, "Cablevision"] {
                let found = try await Self.sessions(console, term)
                #expect(found.contains { $0["id"] as? String == id }, "search by \(term)")
            }
            // the password typed at the MVPD's page is never stored, not even redacted
            var filter = HistoryFilter()
            filter.sessionID = UUID(uuidString: id)
            let events = try await history.page(matching: filter, after: nil, limit: 1000).events
            let stored = events.map { $0.event.fastJSON() }.joined()
            #expect(!stored.contains("alice123"))
            #expect(!stored.contains(#""j_password":"#), "no password field among the recorded parameters")
            #expect(stored.contains(#""j_username":"alice""#))

            // Cablevision revokes the sign-in; the browser's next call is told pendingLogout
            let revoked = try await http.post("/admin/sessions/revoke", json: Data(#"{"deviceId":"\#(browser.deviceID)"}"#.utf8))
            #expect(revoked.status == 200)
            let after = try await browser.session()
            #expect(after.text.contains("<pendingLogout"))
            let (health, verdict) = try await Self.card(console, id, holding: "revoked_by_provider") {
                ($0["text"] as? String)?.contains("pendingLogout") == true
            }
            #expect((verdict?["text"] as? String)?.contains("pendingLogout") == true, "\(health)")
            #expect((health["headline"] as? String)?.contains("Cablevision signed alice out") == true, "\(health)")
            #expect(verdict?["title"] as? String == "Signed out by the TV provider")
            #expect(verdict?["side"] as? String == "mvpd")
        }
    }

    @Test("a REST v1 box (regcode, activation in a browser, checkauthn, authorize, mediatoken) is one session found by its registration code and its device ID")
    func restDeviceIsOneSessionFoundByCodeAndDevice() async throws {
        try await Self.with { console, _, service, http in
            let app = RESTApp(client: http, service: service)
            let device = "living-room-\(UUID().uuidString.prefix(8))"
            let code = try await app.regcode(device: device)
            _ = try await app.activate(code: code, mvpd: "Dish", username: "carol", password: "carol123")
            let check = try await app.get("/api/v1/checkauthn", [("requestor", "REF30"), ("deviceId", device)])
            #expect(check.status == 200, "\(check.text)")
            let authorize = try await app.get("/api/v1/authorize", [("requestor", "REF30"), ("deviceId", device), ("resource", "sports")])
            #expect(authorize.status == 200, "\(authorize.text)")
            let media = try await app.get("/api/v1/mediatoken", [("requestor", "REF30"), ("deviceId", device), ("resource", "sports")])
            #expect(media.status == 200, "\(media.text)")

            let byCode = try await Self.sessions(console, code) { ($0["eventCount"] as? Int ?? 0) >= 6 }
            try #require(byCode.count == 1, "\(byCode)")
            #expect(byCode[0]["client"] as? String == "rest-v1")
            #expect(byCode[0]["deviceID"] as? String == device)
            #expect(byCode[0]["mvpdID"] as? String == "Dish")
            let byDevice = try await Self.sessions(console, device)
            #expect(byDevice.map { $0["id"] as? String } == [byCode[0]["id"] as? String],
                "the activation pages of the second screen joined the box's session")
            let byUser = try await Self.sessions(console, "carol")
            #expect(byUser.contains { $0["id"] as? String == byCode[0]["id"] as? String })
        }
    }

    @Test("a REST API v2 device (session, sign-in in a browser, profiles, decision, logout) is one session of kind rest-v2, found by its code and its device")
    func restV2DeviceIsOneSessionFoundByCodeAndDevice() async throws {
        try await Self.with { console, _, _, http in
            let device = "v2-box-\(UUID().uuidString.prefix(8))"
            let headers = try await Self.v2Headers(http, device: device)
            let session = try await http.post("/api/v2/REF30/sessions",
                form: [("mvpd", "Dish"), ("domainName", "adobe.com"), ("redirectUrl", "myapp://signed-in")], headers: headers)
            let code = try #require(session.json["code"] as? String, "\(session.text)")
            let login = WebLogin(client: http)
            let (page, _) = try await login.follow("/api/v2/authenticate/REF30/\(code)")
            let (_, end) = try await login.submit(page, username: "carol", password: "carol123")
            #expect(end == "myapp://signed-in")
            let profiles = try await http.get("/api/v2/REF30/profiles", headers: headers)
            #expect((profiles.json["profiles"] as? [String: Any])?["Dish"] != nil, "\(profiles.text)")
            let decision = try await http.post("/api/v2/REF30/decisions/authorize/Dish", json: Data(#"{"resources":["sports"]}"#.utf8), headers: headers)
            #expect(decision.status == 200, "\(decision.text)")
            let logout = try await http.get("/api/v2/REF30/logout/Dish?redirectUrl=myapp%3A%2F%2Fout", headers: headers)
            #expect(logout.status == 200, "\(logout.text)")

            let byCode = try await Self.sessions(console, code) { ($0["eventCount"] as? Int ?? 0) >= 6 }
            try #require(byCode.count == 1, "\(byCode)")
            #expect(byCode[0]["client"] as? String == "rest-v2")
            #expect(byCode[0]["deviceID"] as? String == device, "the device of AP-Device-Identifier, decoded")
            #expect(byCode[0]["mvpdID"] as? String == "Dish")
            let byDevice = try await Self.sessions(console, device)
            #expect(byDevice.map { $0["id"] as? String } == [byCode[0]["id"] as? String],
                "the browser's sign-in pages joined the device's session")
            let byUser = try await Self.sessions(console, "carol")
            #expect(byUser.contains { $0["id"] as? String == byCode[0]["id"] as? String })
        }
    }

    @Test("a REST API v2 denial inside a decision is named on the card by its code with the vendor's action in words; a degraded permit is named as such")
    func restV2DenialsAndDegradedPermitsAreNamed() async throws {
        try await Self.with { console, _, service, http in
            let device = "v2-denied-\(UUID().uuidString.prefix(8))"
            let headers = try await Self.v2Headers(http, device: device)
            let session = try await http.post("/api/v2/REF30/sessions",
                form: [("mvpd", "Dish"), ("domainName", "adobe.com"), ("redirectUrl", "myapp://signed-in")], headers: headers)
            let code = try #require(session.json["code"] as? String)
            let login = WebLogin(client: http)
            let (page, _) = try await login.follow("/api/v2/authenticate/REF30/\(code)")
            _ = try await login.submit(page, username: "dave", password: "dave123")
            // dave may watch kids only: the decision for news is an item-level denial in an answer of 200.
            let denied = try await http.post("/api/v2/REF30/decisions/authorize/Dish", json: Data(#"{"resources":["news"]}"#.utf8), headers: headers)
            #expect(denied.status == 200, "\(denied.text)")
            let found = try await Self.sessions(console, device)
            let id = try #require(found.first?["id"] as? String, "\(found)")
            let (_, verdict) = try await Self.card(console, id, holding: "v2_error")
            #expect(verdict?["rule"] as? String == "authorization_denied_by_mvpd", "\(verdict ?? [:])")
            #expect(verdict?["side"] as? String == "mvpd")
            let verdictText = verdict?["text"] as? String ?? ""
            #expect(verdictText.contains("What to do: nothing predefined"), "\(verdict ?? [:])")

            service.faults.degradations = [Degradation(mvpd: "Dish", rule: .authZAll)]
            let degraded = try await http.post("/api/v2/REF30/decisions/authorize/Dish", json: Data(#"{"resources":["news"]}"#.utf8), headers: headers)
            #expect(degraded.status == 200, "\(degraded.text)")
            let (_, note) = try await Self.card(console, id, holding: "v2_degraded")
            #expect(note?["severity"] as? String == "info", "\(note ?? [:])")
        }
    }

    @Test("the migration view lists, per app, the legacy calls its sessions still made with their REST API v2 replacements, and the apps already on v2")
    func migrationViewNamesTheLegacyCallsAndTheirV2Replacements() async throws {
        try await Self.with { console, _, service, http in
            // A living-room box on REST API v1.
            let app = RESTApp(client: http, service: service)
            let box = "v1-box-\(UUID().uuidString.prefix(8))"
            let regcode = try await app.regcode(device: box)
            _ = try await app.activate(code: regcode, mvpd: "Dish", username: "carol", password: "carol123")
            _ = try await app.get("/api/v1/authorize", [("requestor", "REF30"), ("deviceId", box), ("resource", "news")])
            // A device already on REST API v2.
            let headers = try await Self.v2Headers(http, device: "v2-tv")
            _ = try await http.get("/api/v2/REF30/profiles", headers: headers)

            var apps: [[String: Any]] = []
            // Until the recorder's batches are in: the box's regcode and authorize calls, and the v2 app.
            for _ in 0..<Int(TestTime.seconds(100)) {
                let answer = try await Self.get(console, "/api/migration?hours=24")
                apps = answer["apps"] as? [[String: Any]] ?? []
                let v1 = Self.entry(apps, app: "REF30 · REST API v1")
                let made = Set(((v1?["calls"] as? [[String: Any]]) ?? []).compactMap { $0["call"] as? String })
                if made.isSuperset(of: ["GET /api/v1/authorize", "POST /reggie/v1/{requestor}/regcode"]),
                    Self.entry(apps, app: "REF30 · REST API v2") != nil
                { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let v1 = try #require(Self.entry(apps, app: "REF30 · REST API v1"), "\(apps)")
            #expect(v1["legacySessions"] as? Int == 1, "\(apps)")
            let calls = v1["calls"] as? [[String: Any]] ?? []
            var authorize: [String: Any] = [:]
            for call in calls where call["call"] as? String == "GET /api/v1/authorize" { authorize = call }
            let replacement = authorize["replacement"] as? String
            #expect(replacement == "POST /api/v2/{sp}/decisions/authorize/{mvpd}", "\(calls)")
            let count = authorize["sessions"] as? Int
            #expect(count == 1)
            #expect(calls.contains { $0["call"] as? String == "POST /reggie/v1/{requestor}/regcode" }, "\(calls)")
            let v2 = try #require(Self.entry(apps, app: "REF30 · REST API v2"), "\(apps)")
            #expect(v2["legacySessions"] as? Int == 0)
            #expect(v2["v2Sessions"] as? Int == 1)
            #expect((v2["summary"] as? String ?? "").hasPrefix("Migrated"))
            let bad = await console.respond(to: Request(method: "GET", path: "/api/migration", queryItems: [("hours", "1e300")],
                headers: [("Host", "127.0.0.1:8080")], body: Data(), remoteAddress: "127.0.0.1"))
            #expect(bad.status.code == 400, "a window out of range is refused in words")
        }
    }

    @Test("a refusal is named by its side and rule, and an expired registration code in words, on the box's health card")
    func refusalsAndAnExpiredCodeAreNamed() async throws {
        try await Self.with { console, _, service, http in
            let app = RESTApp(client: http, service: service)
            let device = "box-\(UUID().uuidString.prefix(8))"
            let code = try await app.regcode(device: device)
            _ = try await app.activate(code: code, mvpd: "Dish", username: "dave", password: "dave123")
            // dave's Dish package has kids only: the MVPD refuses news
            let denied = try await app.get("/api/v1/authorize", [("requestor", "REF30"), ("deviceId", device), ("resource", "news")])
            #expect(denied.status == 403, "\(denied.text)")
            let id = try #require(try await Self.sessions(console, device).first?["id"] as? String)
            let refused = try await Self.card(console, id, holding: "served_refusal")
            let refusal = try #require(refused.verdict, "\(refused.card)")
            #expect(refusal["side"] as? String == "mvpd")
            #expect((refusal["title"] as? String)?.contains("REST v1 authorize") == true, "\(refusal)")

            // a second code, used after it expired
            let late = try await app.regcode(device: device)
            service.clock.advance(by: 1800 + 60)  // past the code's 30 minutes (Config/demo.json), not yet forgotten
            let gone = try await app.get("/reggie/v1/REF30/regcode/\(late)")
            #expect(gone.status == 410, "\(gone.text)")
            let after = try await Self.card(console, id, holding: "regcode_expired")
            let expired = try #require(after.verdict, "\(after.card)")
            #expect((expired["title"] as? String)?.contains(late) == true)
        }
    }

    @Test("a wrong client secret and an unknown software statement are named on the registration's health card")
    func registrationFailuresAreNamed() async throws {
        try await Self.with { console, _, _, http in
            let unknown = try await http.post("/o/client/register", json: Data(#"{"software_statement":"no-such-statement"}"#.utf8))
            #expect(unknown.status == 400)
            let found = try await Self.sessions(console, "no-such-statement")
            let id = try #require(found.first?["id"] as? String)
            let health = try await Self.get(console, "/api/sessions/\(id)")["health"] as? [String: Any] ?? [:]
            let ids = (health["verdicts"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(ids.contains("unknown_software_statement"), "\(health)")

            let wrong = try await http.post("/o/client/token", form: [
                ("grant_type", "client_credentials"), ("client_id", "no-such-client"), ("client_secret", "guess")])
            #expect(wrong.status == 400)
            let client = try #require(try await Self.sessions(console, "no-such-client").first?["id"] as? String)
            let card = try await Self.get(console, "/api/sessions/\(client)")["health"] as? [String: Any] ?? [:]
            #expect((card["verdicts"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == "wrong_client_secret" }, "\(card)")
        }
    }
}
