import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// tokens/authn, authorize, tokens/authz, media tokens, preauthorize, user metadata and logout: success and each
/// documented status (400, 403, 404, 410, 412).
@Suite struct RESTTokenEndpointTests {
    /// A REST app with `device` signed in as `username` of `mvpd` through the activation page.
    func signedIn(_ service: BackendService, _ client: TestHTTPClient, device: String, mvpd: String = "Dish",
                  username: String = "dave", password: String = "dave123") async throws -> RESTApp {
        let app = RESTApp(client: client, service: service)
        let code = try await app.regcode(device: device)
        let done = try await app.activate(code: code, mvpd: mvpd, username: username, password: password)
        #expect(done.status == 200)
        return app
    }

    @Test func beforeSignInEveryTokenCallSaysWhy() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let device = [("deviceId", "nobody")]
            #expect(try await app.get("/api/v1/tokens/authn", device).status == 404)
            #expect(try await app.get("/api/v1/tokens/usermetadata", device).status == 404)
            for path in ["/api/v1/authorize", "/api/v1/tokens/authz", "/api/v1/tokens/media", "/api/v1/preauthorize"] {
                let answer = try await app.get(path, device + [("resource", "kids")])
                #expect(answer.status == 412, "\(path)")
                #expect(answer.json["message"] as? String == "User not authenticated", "\(path): \(answer.text)")
            }
            let noDevice = try await app.get("/api/v1/authorize", [("resource", "kids")])
            #expect(noDevice.status == 400)
            #expect((noDevice.json["details"] as? String ?? "").contains("deviceId"))
            let logout = try await app.delete("/api/v1/logout", device)
            #expect(logout.status == 204, "logout is idempotent")
        }
    }

    @Test func authorizationDecisionsAndTheirSummaries() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = try await signedIn(service, client, device: "tv-dave")
            let device = [("deviceId", "tv-dave")]
            let noAuthz = try await app.get("/api/v1/tokens/authz", device + [("resource", "kids")])
            #expect(noAuthz.status == 404)

            let denied = try await app.get("/api/v1/authorize", device + [("resource", "sports")])
            #expect(denied.status == 403)
            #expect(denied.json["message"] as? String == "User not authorized")
            #expect((denied.json["details"] as? String ?? "").contains("not authorized"))
            let unknown = try await app.get("/api/v1/authorize", device + [("resource", "no-such-show")])
            #expect(unknown.status == 403)
            #expect((unknown.json["details"] as? String ?? "").contains("Unknown resource"))
            let mediaDenied = try await app.get("/api/v1/tokens/media", device + [("resource", "sports")])
            #expect(mediaDenied.status == 403)

            let granted = try await app.get("/api/v1/authorize", device + [("resource", "kids")])
            #expect(granted.status == 200)
            let summary = try await app.get("/api/v1/tokens/authz", device + [("resource", "kids")])
            #expect(summary.status == 200)
            #expect(summary.json["expires"] as? String == granted.json["expires"] as? String)

            service.clock.advance(by: 86401)  // Dish authZ TTL
            let expired = try await app.get("/api/v1/tokens/authz", device + [("resource", "kids")])
            #expect(expired.status == 410)
        }
    }

    @Test func mrssResourceIsAuthorizedByItsChannelTitle() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = try await signedIn(service, client, device: "tv-mrss")
            let mrss = #"<rss version="2.0"><channel><title>kids</title></channel></rss>"#
            let answer = try await app.get("/api/v1/authorize", [("deviceId", "tv-mrss"), ("resource", mrss)])
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.json["resource"] as? String == "kids")
        }
    }

    @Test func mediaTokenIsNewEachTimeAndBase64() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = try await signedIn(service, client, device: "tv-media")
            let query = [("deviceId", "tv-media"), ("resource", "kids")]
            let first = try await app.get("/api/v1/tokens/media", query)
            let second = try await app.get("/api/v1/mediatoken", query)
            #expect(first.status == 200 && second.status == 200)
            let a = try #require(first.json["serializedToken"] as? String)
            let b = try #require(second.json["serializedToken"] as? String)
            #expect(a != b)
            let token = try SignedToken<MediaToken>.parse(base64: a)
            #expect(token.verify(with: service.signingKey.publicKey))
            #expect(token.body.resourceID == "kids")
            #expect(first.json["mvpdId"] as? String == "Dish")
            #expect(first.json["expires"] is String)
        }
    }

    @Test func preauthorizeListsEachResource() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = try await signedIn(service, client, device: "tv-pre")
            let answer = try await app.get("/api/v1/preauthorize", [("deviceId", "tv-pre"), ("resource", "kids,sports"), ("resource", "news")])
            #expect(answer.status == 200)
            #expect(answer.header("Adobe-Response-Confidence") == "full")
            #expect(answer.header("Adobe-Request-Id") != nil)
            let decisions = try PreauthorizationResponse.decode(json: answer.body).resources
            #expect(decisions.map(\.id) == ["kids", "sports", "news"])
            #expect(decisions.map(\.authorized) == [true, false, false])
            #expect(decisions[1].error?.status == 403)

            let xml = try await app.get("/api/v1/preauthorize", [("deviceId", "tv-pre"), ("resource", "kids")], format: "xml")
            #expect(try PreauthorizationResponse.parse(xml: xml.text).authorizedIDs == ["kids"])
            let none = try await app.get("/api/v1/preauthorize", [("deviceId", "tv-pre")])
            #expect(none.status == 400)
        }
    }

    @Test func preauthorizeByCodeUsesTheCodesDevice() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let code = try await app.regcode(device: "tv-code")
            let early = try await app.get("/api/v1/preauthorize/\(code)", [("resource", "kids")])
            #expect(early.status == 412)
            _ = try await app.activate(code: code, mvpd: "Dish", username: "dave", password: "dave123")
            let answer = try await app.get("/api/v1/preauthorize/\(code)", [("resource", "kids")])
            #expect(answer.status == 200, "\(answer.text)")
            let paired = try await app.get("/api/v1/authenticate/\(code)")
            #expect(paired.status == 200)
            #expect(paired.json["mvpd"] as? String == "Dish")
        }
    }

    @Test func userMetadataAndExpiredAuthentication() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = try await signedIn(service, client, device: "tv-meta")
            let device = [("deviceId", "tv-meta")]
            let metadata = try await app.get("/api/v1/tokens/usermetadata", device)
            #expect(metadata.status == 200)
            let data = try #require(metadata.json["data"] as? [String: Any])
            #expect(data["householdID"] as? String == "hh-dave")

            service.clock.advance(by: 604801)  // Dish authN TTL
            #expect(try await app.get("/api/v1/tokens/authn", device).status == 410)
            #expect(try await app.get("/api/v1/tokens/usermetadata", device).status == 412)
            #expect(try await app.get("/api/v1/checkauthn", device).status == 403)
        }
    }

    @Test func appIdScopesTheSessionToThatApp() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let code = try await app.regcode(device: "tv-app", extra: [("appId", "com.example.one")])
            _ = try await app.activate(code: code, mvpd: "Dish", username: "dave", password: "dave123")
            #expect(try await app.get("/api/v1/checkauthn", [("deviceId", "tv-app"), ("appId", "com.example.one")]).status == 200)
            #expect(try await app.get("/api/v1/checkauthn", [("deviceId", "tv-app")]).status == 403)
            #expect(try await app.get("/api/v1/checkauthn", [("deviceId", "tv-app"), ("appId", "com.example.two")]).status == 403)
        }
    }

    @Test func revokedSessionAndTunnelledMethod() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = try await signedIn(service, client, device: "tv-rev")
            let path = "/api/v1/checkauthn"
            let tunnelled = try await client.post(path + "?format=json", form: [("_method", "GET"), ("deviceId", "tv-rev")],
                headers: ["Authorization": app.authorization("GET", path)])
            #expect(tunnelled.status == 200, "\(tunnelled.text)")
            service.revokeSessions(deviceID: "tv-rev")
            let revoked = try await app.get("/api/v1/authorize", [("deviceId", "tv-rev"), ("resource", "kids")])
            #expect(revoked.status == 412)
            #expect((revoked.json["details"] as? String ?? "").contains("ended on the server"))
        }
    }

    @Test func configAnswersInBothFormats() async throws {
        try await BackendFixture.with { _, client async throws in
            let xml = try await client.get("/api/v1/config/REF30")
            #expect(xml.status == 200)
            let configuration = try RequestorConfiguration.parse(xml: xml.text)
            #expect(configuration.mvpds.map(\.id) == ["Cablevision", "Spectrum", "Dish"])
            let json = try await client.get("/api/v1/config/REF30.json")
            #expect(json.header("Content-Type")?.contains("json") == true)
            let missing = try await client.get("/api/v1/config/NOPE?format=json")
            #expect(missing.status == 404)
            #expect(missing.json["status"] as? Int == 404)
        }
    }
}
