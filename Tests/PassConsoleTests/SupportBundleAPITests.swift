import AccessEnabler
import Crypto
import Foundation
import HistoryTestSupport
import PassStorage
import MicroHTTP
import PassHistory
import PassTestSupport
import Testing
@testable import PassConsole

/// A support bundle: one file with a session's story for a ticket, every token redacted but fingerprinted.
@Suite(.serialized)
struct SupportBundleAPITests {
    /// Every string stored under `key` anywhere in a JSON value.
    func strings(named key: String, in value: Any) -> [String] {
        if let object = value as? [String: Any] {
            return object.flatMap { name, child in (name == key ? [child as? String].compactMap { $0 } : []) + strings(named: key, in: child) }
        }
        if let array = value as? [Any] { return array.flatMap { strings(named: key, in: $0) } }
        return []
    }

    @Test(arguments: HistoryBackend.allCases) func aSessionsBundleHoldsItsStoryWithEveryTokenRedactedButFingerprinted(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await fixture.waitForApp("news-ios") { (($0["callbacks"] as? [[String: Any]]) ?? []).contains { $0["name"] as? String == "setToken" } }
            try await fixture.waitUntilRecorded(atLeast: 20)
            let sessions = await fixture.get("/api/sessions?q=com.example.news.ios").json["sessions"] as? [[String: Any]] ?? []
            let id = try #require(sessions.first?["id"] as? String)

            let answer = await fixture.get("/api/sessions/\(id)/bundle")
            #expect(answer.status == 200)
            #expect(answer.header("Content-Disposition")?.contains("passconsole-support-\(id.prefix(8))") == true)
            let bundle = answer.json
            let manifest = try #require(bundle["manifest"] as? [String: Any])
            #expect(manifest["format"] as? String == "passconsole-support-bundle")
            let events = try #require(bundle["events"] as? [[String: Any]])
            #expect(manifest["eventCount"] as? Int == events.count && events.count >= 20)
            let entries = ((bundle["har"] as? [String: Any])?["log"] as? [String: Any])?["entries"] as? [Any] ?? []
            #expect(entries.count == manifest["exchangeCount"] as? Int && !entries.isEmpty)
            #expect((bundle["summary"] as? String)?.contains("Signed in with Cablevision for REF30") == true)
            #expect((bundle["contract"] as? [[String: Any]])?.contains { $0["status"] as? String == "broken" } == false)

            // The stored tokens never appear; their fingerprints do, and match the tokens' SHA-256.
            let stored = try #require(try fixture.phoneTeamStorage())
            let tokens = strings(named: "authnToken", in: try JSONSerialization.jsonObject(with: stored))
            let authn = try #require(tokens.first)
            #expect(!answer.text.contains(authn))
            let expected = SHA256.hash(data: Data(authn.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
            #expect(strings(named: "fingerprint", in: bundle).contains(expected))

            // The export is in the audit log; an unknown session is a 404 in words.
            let audit = await fixture.get("/api/audit").json["entries"] as? [[String: Any]] ?? []
            #expect(audit.contains { $0["action"] as? String == "export" && ($0["detail"] as? String ?? "").contains("Support bundle") })
            let missing = await fixture.get("/api/sessions/\(UUID().uuidString)/bundle")
            #expect(missing.status == 404 && missing.json["error"] as? String == "unknown_session")
        }
    }

    @Test func aBundleOpensAsAReadOnlyConsoleShowingWhatWasExported() async throws {
        try await ConsoleFixture.with { fixture in
            try await fixture.signIn()
            try await fixture.waitUntilRecorded(atLeast: 15)
            let sessions = await fixture.get("/api/sessions?q=com.example.news.ios").json["sessions"] as? [[String: Any]] ?? []
            let id = try #require(sessions.first?["id"] as? String)
            let exported = await fixture.get("/api/sessions/\(id)/bundle")
            let original = await fixture.get("/api/sessions/\(id)").json
            let file = fixture.root.appendingPathComponent("bundle.json")
            try exported.body.write(to: file)

            // Opened again: the session, its card and contract as exported, the storage report, nothing changeable
            let opened = try OpenedBundle.read(path: file.path)
            #expect(opened.sessionID.uuidString == id)
            let history = try HistoryDatabase.inMemory()
            try await history.append(opened.events)
            var configuration = ConsoleConfiguration(device: DeviceFolder(root: fixture.root.appendingPathComponent("empty")))
            configuration.port = 0
            configuration.bundle = opened
            let offline = Console(configuration: configuration, history: history, logger: TestServer.logger)
            func get(_ path: String) async -> APIAnswer {
                let parts = path.split(separator: "?", maxSplits: 1)
                let request = Request(method: "GET", path: String(parts[0]),
                    queryItems: parts.count > 1 ? FormEncoding.decode(String(parts[1])) : [], headers: [("Host", "127.0.0.1:8080")])
                let response: Response
                if let inline = offline.respondInline(to: request) { response = inline } else { response = await offline.respond(to: request) }
                return APIAnswer(status: response.status.code, body: response.bodyData, headers: response.headers)
            }
            let overview = await get("/api/overview").json
            #expect((overview["offline"] as? [String: Any])?["sessionID"] as? String == id)
            let detail = await get("/api/sessions/\(id)").json
            #expect((detail["health"] as? [String: Any])?["headline"] as? String == (original["health"] as? [String: Any])?["headline"] as? String)
            #expect((detail["contract"] as? [Any])?.count == (original["contract"] as? [Any])?.count)
            let events = await get("/api/events?q=session:\(id)&limit=500").json["events"] as? [Any] ?? []
            #expect(events.count == opened.events.count)
            #expect(await get("/api/sessions/\(id)/bundle").body == exported.body)
            let storage = await get("/api/storage").json
            #expect((storage["domains"] as? [Any])?.isEmpty == false)
            let csrf = offline.csrfToken
            let clear = Request(method: "POST", path: "/api/storage/clear", headers: [("Host", "127.0.0.1:8080"), ("X-PassConsole-CSRF", csrf)],
                body: Data("{}".utf8))
            let refused = await offline.respond(to: clear)
            #expect(refused.status.code == 403)
            #expect(String(decoding: refused.bodyData, as: UTF8.self).contains("read_only"))

            // A file that is not a bundle is refused in words.
            let other = fixture.root.appendingPathComponent("other.json")
            try Data(#"{"manifest":{"format":"passconsole-storage"}}"#.utf8).write(to: other)
            #expect(throws: OpenedBundle.Unreadable.self) { try OpenedBundle.read(path: other.path) }
        }
    }
}
