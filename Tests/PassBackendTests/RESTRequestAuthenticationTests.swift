import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// The legacy HMAC `Authorization` header and bearer tokens (spec §5.4.2, §5.3): every refusal is a 401 that says why.
@Suite struct RESTRequestAuthenticationTests {
    static let path = "/api/v1/checkauthn"

    func refusal(_ client: TestHTTPClient, _ header: String?, path: String = path) async throws -> HTTPResult {
        try await client.get(path + "?deviceId=d1&format=json", headers: header.map { ["Authorization": $0] } ?? [:])
    }

    @Test func eitherRequestURIStyleIsAccepted() async throws {
        try await BackendFixture.with { service, client async throws in
            var app = RESTApp(client: client, service: service)
            let full = try await app.get(Self.path, [("deviceId", "d1")])
            #expect(full.status == 403, "signed fine, not signed in: \(full.text)")
            app.shortRequestURI = true
            let short = try await app.get(Self.path, [("deviceId", "d1")])
            #expect(short.status == 403, "\(short.text)")
        }
    }

    @Test func requestorIsTakenFromTheHeaderWhenTheQueryLacksIt() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let code = try await app.regcode(device: "kodi")
            _ = try await app.activate(code: code, mvpd: "Dish", username: "carol", password: "carol123")
            let header = app.authorization("GET", Self.path)
            let answer = try await client.get(Self.path + "?deviceId=kodi", headers: ["Authorization": header])
            #expect(answer.status == 200, "\(answer.text)")
        }
    }

    @Test func eachBadHeaderIsRefusedWithItsReason() async throws {
        try await BackendFixture.with { service, client async throws in
            let now = EpochMilliseconds.from(service.now())
            func signed(method: String = "GET", requestor: String = "REF30", uri: String = Self.path, key: String = "demo-public-key",
                        secret: String = "demo-secret-change-me", nonce: String = UUID().uuidString, time: Int64 = now) -> String {
                LegacyAuthorization.make(method: method, requestorID: requestor, requestURI: uri, publicKey: key, secret: secret,
                                         nonce: nonce, requestTime: time)
            }
            let reused = signed(nonce: "fixed-nonce")
            _ = try await refusal(client, reused)
            let cases: [(String?, String)] = [
                (nil, "missing"),
                ("garbage", "Malformed"),
                ("GET requestor_id=REF30, nonce=x", "public_key"),
                (signed(key: "unknown-key"), "unknown-key"),
                (signed(secret: "wrong-secret"), "signature does not match"),
                (signed(requestor: "SPORTS1"), "registered for requestor REF30"),
                (signed(method: "POST"), "signed for POST"),
                (signed(uri: "/api/v1/authorize"), "request_uri"),
                (signed(time: now - 3_600_000), "request_time"),
                (reused, "already used"),
                ("Bearer not-a-token", "bearer token is unknown"),
            ]
            for (header, reason) in cases {
                let answer = try await refusal(client, header)
                #expect(answer.status == 401, "\(header ?? "none")")
                #expect(answer.json["status"] as? Int == 401)
                #expect((answer.json["details"] as? String ?? "").contains(reason), "\(header ?? "none"): \(answer.text)")
            }
        }
    }

    @Test func errorsAreXMLWhenXMLWasAskedFor() async throws {
        try await BackendFixture.with { _, client async throws in
            let answer = try await client.get(Self.path + "?deviceId=d1&format=xml")
            #expect(answer.status == 401)
            let error = try RESTError.parse(xml: answer.text)
            #expect(error.status == 401)
            #expect(error.details?.contains("missing") == true)
        }
    }

    @Test func dynamicClientRegistrationGivesABearerToken() async throws {
        try await BackendFixture.with { service, client async throws in
            let body = Data(#"{"software_statement":"demo-software-statement","redirect_uri":"adbe.demo://"}"#.utf8)
            let registered = try await client.post("/o/client/register", json: body)
            #expect(registered.status == 201, "\(registered.text)")
            let clientID = try #require(registered.json["client_id"] as? String)
            let secret = try #require(registered.json["client_secret"] as? String)
            #expect(registered.json["grant_types"] as? [String] == ["client_credentials"])

            let token = try await client.post("/o/client/token", form: [
                ("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", secret)])
            #expect(token.status == 201, "\(token.text)")
            #expect(token.json["token_type"] as? String == "bearer")
            let access = try #require(token.json["access_token"] as? String)

            var app = RESTApp(client: client, service: service)
            app.bearer = access
            let code = try await app.regcode(device: "dcr-device")
            #expect(!code.isEmpty)
            let record = try await app.get("/reggie/v1/REF30/regcode/\(code)")
            #expect((record.json["info"] as? [String: Any])?["authorizationType"] as? String == "OAUTH2")

            service.clock.advance(by: 21601)
            let expired = try await app.get("/api/v1/checkauthn", [("deviceId", "dcr-device")])
            #expect(expired.status == 401)
            #expect((expired.json["details"] as? String ?? "").contains("expired"))
        }
    }

    @Test func clientRegistrationErrorsAreOAuthStyle() async throws {
        try await BackendFixture.with { _, client async throws in
            let cases: [(Data, String)] = [
                (Data("not json".utf8), "invalid_request"),
                (Data(#"{}"#.utf8), "invalid_request"),
                (Data(#"{"software_statement":"forged"}"#.utf8), "invalid_software_statement"),
                (Data(#"{"software_statement":"demo-software-statement","redirect_uri":"nothing"}"#.utf8), "invalid_redirect_uri"),
            ]
            for (body, error) in cases {
                let answer = try await client.post("/o/client/register", json: body)
                #expect(answer.status == 400)
                #expect(answer.json["error"] as? String == error, "\(answer.text)")
            }
            let badGrant = try await client.post("/o/client/token", form: [("grant_type", "password"), ("client_id", "x"), ("client_secret", "y")])
            #expect(badGrant.json["error"] as? String == "unsupported_grant_type")
            let badClient = try await client.post("/o/client/token", form: [("grant_type", "client_credentials"), ("client_id", "x"), ("client_secret", "y")])
            #expect(badClient.json["error"] as? String == "invalid_client")
            let missing = try await client.post("/o/client/token", form: [])
            #expect(missing.json["error"] as? String == "invalid_request")
        }
    }

    @Test func revokedSoftwareStatementStopsItsTokens() async throws {
        try await BackendFixture.with { service, client async throws in
            let registered = try await client.post("/o/client/register", json: Data(#"{"software_statement":"demo-software-statement"}"#.utf8))
            let token = try await client.post("/o/client/token", form: [
                ("grant_type", "client_credentials"), ("client_id", registered.json["client_id"] as? String ?? ""),
                ("client_secret", registered.json["client_secret"] as? String ?? "")])
            var app = RESTApp(client: client, service: service)
            app.bearer = token.json["access_token"] as? String
            let revoke = try await client.post("/admin/statements/revoke", json: Data(#"{"softwareStatement":"demo-software-statement"}"#.utf8))
            #expect(revoke.status == 204, "\(revoke.text)")
            let answer = try await app.get("/api/v1/checkauthn", [("deviceId", "d")])
            #expect(answer.status == 401)
            #expect((answer.json["details"] as? String ?? "").contains("revoked"))
            let again = try await client.post("/o/client/register", json: Data(#"{"software_statement":"demo-software-statement"}"#.utf8))
            #expect(again.json["error"] as? String == "unapproved_software_statement")
        }
    }
}
