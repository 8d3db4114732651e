import AccessEnabler
import Foundation
import PassHistory
import PassProtocol
import Testing

/// Events other processes report through `POST /api/ingest` pass through the SDK's own redaction before they are
/// stored: a reporter's password field or full authN token never reaches the history file or an export.
@Suite(.serialized)
struct IngestRedactionTests {
    @Test func anIngestedPasswordFieldAndFullAuthNTokenAreStoredAndExportedRedacted() async throws {
        try await ConsoleFixture.with { fixture in
            // Given a reporter's events holding a password form field and a full signed authN token, in every place
            // a token travels: a form field, a header, a query, a raw and a Base64 (REST) answer body, a callback
            let token = SignedToken.sign(
                AuthNToken(guid: UUID().uuidString, requestorID: "REF30", expires: Date().addingTimeInterval(3600), mvpdID: "Cablevision",
                    deviceFingerprint: "fingerprint-\(UUID().uuidString)"),
                with: fixture.backend.signingKey
            ).serialized
            let base64 = Data(token.utf8).base64EncodedString()
            let password = "hunter2-\(UUID().uuidString)"
            let session = UUID()
            let app = AppIdentity(bundleID: "com.reporter.app", teamID: "REPORT1")
            func event(_ sequence: Int, _ kind: EntitlementEvent.Kind) -> EntitlementEvent {
                EntitlementEvent(sequence: sequence, timestamp: Date(), sessionID: session, deviceID: "d", app: app, requestorID: "REF30",
                    mvpdID: "Cablevision", kind: kind)
            }
            let query = try #require(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let events = [
                event(1, .httpExchange(exchange: HTTPExchange(
                    method: "POST", url: "http://127.0.0.1:8081/login", parameters: ["username": "alice", "Password": password],
                    status: 302, responseBody: nil, failure: nil, durationMs: 3))),
                event(2, .httpExchange(exchange: HTTPExchange(
                    method: "GET", url: "http://127.0.0.1:8081/authorize?authentication_token=\(query)&resource=news",
                    parameters: ["authentication_token": token], headers: ["Authorization": "Bearer \(token)"], status: 200,
                    responseBody: "<authorization>\(token)</authorization>", failure: nil, durationMs: 4))),
                event(3, .httpExchange(exchange: HTTPExchange(
                    method: "POST", url: "http://127.0.0.1:8081/api/v1/tokens/authn", parameters: [:], status: 200,
                    responseBody: #"{"serializedToken":"\#(base64)"}"#, failure: nil, durationMs: 5))),
                event(4, .callback(callback: .setToken(token: token, resource: "news"))),
                event(5, .apiCall(name: "login", arguments: ["user": "alice", "password": password])),
            ]
            // When they are ingested
            let answer = await fixture.post("/api/ingest", body: try EntitlementEvent.Wire.ndjson(events),
                headers: [("Host", "127.0.0.1:8080"), ("Content-Type", "application/x-ndjson")])
            #expect(answer.json["accepted"] as? Int == 5)
            // Then neither the password nor the token (nor its signature, Base64 or URL-encoded form) is stored or exported
            let signature = try #require(token.components(separatedBy: "<signatureInfo>").dropFirst().first)
            let secrets = [String(password.prefix(12)), token, base64, query, signature, "<simpleAuthenticationToken>"]
            func leaks(_ text: String, _ place: String) {
                for secret in secrets { #expect(!text.contains(secret), "\(place) holds a secret: \(secret.prefix(24))…") }
            }
            let stored = try await fixture.console.history.page(matching: HistoryFilter(sessionID: session)).events.map(\.event)
            #expect(stored.count == 5)
            #expect(stored.map(\.kind) == events.map { $0.redacted().kind })
            leaks(String(decoding: try EntitlementEvent.Wire.ndjson(stored), as: UTF8.self), "the stored events")
            leaks(await fixture.get("/api/events/export?format=ndjson").text, "the NDJSON export")
            leaks(await fixture.get("/api/events/export?format=csv").text, "the CSV export")
            leaks(await fixture.get("/api/network/har").text, "the HAR export")
            leaks(await fixture.get("/api/events?limit=50").text, "the events API")
            // And the history file's bytes on disk (and its WAL) hold neither
            let path = try #require(fixture.sqlite.path)
            for file in [path, path + "-wal"] {
                let bytes = (try? Data(contentsOf: URL(filePath: file))) ?? Data()
                leaks(String(decoding: bytes, as: UTF8.self), file)
            }
            // And what is kept still tells the fields apart: a marked, shortened value
            guard case .httpExchange(let login) = stored[0].kind else {
                Issue.record("not an exchange")
                return
            }
            #expect(login.parameters["Password"] == "[redacted]")
            #expect(login.parameters["username"] == "alice")
        }
    }
}
