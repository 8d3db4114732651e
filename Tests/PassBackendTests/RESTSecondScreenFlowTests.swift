import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// The second-screen flow of a REST v1 client, end to end over HTTP (issue 2 §5).
@Suite struct RESTSecondScreenFlowTests {
    @Test func regcodeActivateAuthorizeMediaTokenVerifyLogout() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let device = "tv-\(UUID().uuidString)"
            let code = try await app.regcode(device: device, extra: [("ttl", "1800")])
            #expect(code.count == 7 && code.allSatisfy { $0.isUppercase || $0.isNumber })

            let before = try await app.get("/api/v1/checkauthn", [("deviceId", device)])
            #expect(before.status == 403)

            let done = try await app.activate(code: code, mvpd: "Dish", username: "carol", password: "carol123")
            #expect(done.status == 200)
            #expect(done.text.contains("Return to your TV"))

            let byCode = try await app.get("/api/v1/checkauthn/\(code)")
            #expect(byCode.status == 200)
            let check = try await app.get("/api/v1/checkauthn", [("deviceId", device)])
            #expect(check.status == 200)

            let authn = try await app.get("/api/v1/tokens/authn", [("deviceId", device)])
            #expect(authn.status == 200)
            #expect(authn.json["mvpd"] as? String == "Dish")
            #expect(authn.json["expires"] is String, "expires is a string of milliseconds in v1 token answers")

            let authz = try await app.get("/api/v1/authorize", [("deviceId", device), ("resource", "sports")])
            #expect(authz.status == 200, "\(authz.text)")
            #expect(authz.json["resource"] as? String == "sports")
            #expect(authz.json["expires"] is String)

            let media = try await app.get("/api/v1/mediatoken", [("deviceId", device), ("resource", "sports")])
            #expect(media.status == 200, "\(media.text)")
            let serialized = try #require(media.json["serializedToken"] as? String)

            let first = try await client.post("/verify", form: [("token", serialized), ("resource", "sports")])
            #expect(first.status == 200, "\(first.text)")
            let replay = try await client.post("/verify", form: [("token", serialized), ("resource", "sports")])
            #expect(replay.status == 403)
            #expect(replay.text.contains("tokenAlreadyUsed") || replay.text.lowercased().contains("already"))

            let logout = try await app.delete("/api/v1/logout", [("deviceId", device)])
            #expect(logout.status == 204)
            let after = try await app.get("/api/v1/checkauthn", [("deviceId", device)])
            #expect(after.status == 403)
            let authzAfter = try await app.get("/api/v1/authorize", [("deviceId", device), ("resource", "sports")])
            #expect(authzAfter.status == 412)
        }
    }

    @Test func activationPageRejectsUnknownAndExpiredCodes() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let unknown = try await client.post("/activate", form: [("code", "NOPE123")])
            #expect(unknown.status == 404)
            #expect(unknown.text.contains("not valid"))
            #expect(unknown.text.contains("<form"), "the form is shown again")

            let code = try await app.regcode(device: "tv-exp", extra: [("ttl", "60")])
            service.clock.advance(by: 61)
            let expired = try await client.post("/activate", form: [("code", code)])
            #expect(expired.status == 410)
            #expect(expired.text.contains("expired"))
            let browser = try await client.get("/api/v1/authenticate?reg_code=\(code)&requestor_id=REF30&mso_id=Dish")
            #expect(browser.status == 400)
            let regcode = try await app.get("/reggie/v1/REF30/regcode/\(code)")
            #expect(regcode.status == 410)
        }
    }

    @Test func cancelOnTheMVPDPageEndsOnTheDonePageWithoutSignIn() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let device = "tv-cancel"
            let code = try await app.regcode(device: device)
            let login = WebLogin(client: client)
            let (page, _) = try await login.follow(
                "/api/v1/authenticate?reg_code=\(code)&requestor_id=REF30&mso_id=Dish&domain_name=adobe.com")
            let (end, _) = try await login.submit(page, username: "", password: "", cancel: true)
            #expect(end.text.contains("You cancelled the sign-in"))
            let check = try await app.get("/api/v1/checkauthn", [("deviceId", device)])
            #expect(check.status == 403)
        }
    }

    @Test func browserAuthenticateValidatesItsParameters() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let code = try await app.regcode(device: "tv-params")
            let cases: [(String, String)] = [
                ("/api/v1/authenticate?requestor_id=REF30&mso_id=Dish", "reg_code"),
                ("/api/v1/authenticate?reg_code=\(code)&requestor_id=REF30", "mso_id"),
                ("/api/v1/authenticate?reg_code=\(code)&requestor_id=REF30&mso_id=Nowhere", "Nowhere"),
                ("/api/v1/authenticate?reg_code=\(code)&requestor_id=SPORTS1&mso_id=Dish", code),
                ("/api/v1/authenticate?reg_code=\(code)&requestor_id=REF30&mso_id=Dish&domain_name=evil.example", "evil.example"),
            ]
            for (path, mention) in cases {
                let answer = try await client.get(path)
                #expect(answer.status == 400, "\(path)")
                #expect((answer.json["message"] as? String ?? "").contains(mention), "\(path): \(answer.text)")
            }
            let good = try await client.get("/api/v1/authenticate?reg_code=\(code)&requestor_id=REF30&mso_id=Dish")
            #expect(good.status == 302)
            #expect(good.header("Location")?.hasPrefix("/mvpd/Dish/login") == true)
        }
    }

    @Test func regcodeWithPresetMVPDOffersOnlyThatProvider() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let code = try await app.regcode(device: "tv-preset", extra: [("mvpd", "Spectrum")])
            let picker = try await client.get("/activate?code=\(code.lowercased())")
            #expect(picker.status == 200)
            #expect(picker.text.contains("mso_id=Spectrum"))
            #expect(!picker.text.contains("mso_id=Dish"))
        }
    }
}
