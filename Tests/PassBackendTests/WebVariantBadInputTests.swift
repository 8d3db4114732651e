import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// Bad input to the web variant's endpoints (issue 17 A.1, A.2, A.5): each gets a clear 4xx naming what is wrong,
/// never a server error, and the backend keeps serving.
struct WebVariantBadInputTests {
    @Test func deviceRegistrationRefusesBodiesWithoutAUsableFingerprint() async throws {
        try await BackendFixture.with { _, client async throws in
            let cases: [(String, String)] = [
                ("", "invalid_json"), ("not json", "invalid_json"), (#"{"fingerprint": 42}"#, "invalid_json"),
                ("{}", "missing_parameter"), (#"{"fingerprint": "  "}"#, "missing_parameter"),
                (#"{"fingerprint": "\#(String(repeating: "f", count: 513))"}"#, "invalid_parameter"),
            ]
            for (body, code) in cases {
                let answer = try await client.post("/indiv/devices", json: Data(body.utf8))
                #expect(answer.status == 400, "\(body.prefix(40)): \(answer.status) \(answer.text)")
                #expect(answer.json["error"] as? String == code, "\(body.prefix(40)): \(answer.text)")
                #expect(answer.header("pass_sfp") == nil)
            }
            try await BadInputTests.expectStillServing(client)
        }
    }

    @Test func theSameFingerprintKeepsItsDeviceAndAnotherGetsAnother() async throws {
        try await BackendFixture.with { _, client async throws in
            func register(_ fingerprint: String) async throws -> (String, String) {
                let answer = try await client.post(
                    "/indiv/devices", json: try JSONSerialization.data(withJSONObject: ["fingerprint": fingerprint]))
                #expect(answer.status == 200)
                return (answer.json["deviceId"] as? String ?? "", answer.header("pass_sfp") ?? "")
            }
            let (one, sfp) = try await register("browser-1")
            let (again, _) = try await register("browser-1")
            let (other, _) = try await register("browser-2")
            #expect(one == again)
            #expect(one != other)
            #expect(!sfp.contains(one), "pass_sfp is signed, not the device ID in clear")
        }
    }

    @Test func signInNeedsADeviceOrALiveRegistrationCodeOfThatProgrammer() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let code = try await app.regcode(device: "web-device", extra: [("ttl", "60")])
            let base = "/adobe-services/authenticate/saml?requestor_id=REF30&mso_id=Dish"
            let cases: [(String, Int, String)] = [
                (base, 400, "missing_parameter"),
                (base + "&reg_code=NOPE123", 400, "unknown_code"),
                (
                    "/adobe-services/authenticate/saml?requestor_id=SPORTS1&mso_id=Dish&reg_code=\(code)", 400,
                    "wrong_requestor"
                ),
                (base + "&reg_code=\(code)&device_id=another-device", 400, "device_mismatch"),
            ]
            for (path, status, error) in cases {
                let answer = try await client.get(path)
                #expect(answer.status == status, "\(path): \(answer.text)")
                #expect(answer.json["error"] as? String == error, "\(path): \(answer.text)")
                #expect(answer.header("Location") == nil)
                #expect(answer.setCookies.isEmpty)
            }
            // Refused sign-ins with a code are remembered for the console's card of the code.
            let life = try #require(service.regcodeLife(code))
            #expect(life.attempts.map(\.outcome) == ["wrong_requestor", "device_mismatch"])
            #expect(life.attempts.allSatisfy { $0.via == "authenticate/saml" })
            let missing = try await client.get(base)
            #expect((missing.json["message"] as? String)?.contains("reg_code") == true)
            // The same code with its own device, or alone, starts the sign-in; lower case is the same code.
            #expect(try await client.get(base + "&reg_code=\(code)&device_id=web-device").status == 302)
            #expect(try await client.get(base + "&reg_code=\(code.lowercased())").status == 302)
            service.clock.advance(by: 61)
            let expired = try await client.get(base + "&reg_code=\(code)")
            #expect(expired.status == 410)
            #expect(expired.json["error"] as? String == "expired")
        }
    }

    @Test func webCallsRefuseDevicesTheyCannotTrustOrThatDisagree() async throws {
        try await BackendFixture.with { _, client async throws in
            var web = WebVariantClient(http: client)
            _ = try await web.registerDevice(fingerprint: "one")
            let sfp = try #require(web.headers["pass_sfp"])
            let form = [("_method", "GET"), ("requestor_id", "REF30")]
            let tampered = "Zm9yZ2Vk" + sfp.drop { $0 != "." }
            let cases: [([String: String], Int, String)] = [
                ([:], 400, "missing_parameter"),
                (["pass_sfp": "garbage"], 400, "invalid_pass_sfp"),
                (["pass_sfp": tampered], 400, "invalid_pass_sfp"),
                (["pass_sfp": sfp, "ap_21": "someone-else"], 400, "device_mismatch"),
            ]
            for (headers, status, error) in cases {
                let answer = try await client.post("/adobe-services/session", form: form, headers: headers)
                #expect(answer.status == status, "\(headers): \(answer.text)")
                #expect(answer.json["error"] as? String == error, "\(headers): \(answer.text)")
            }
            // A device that never signed in: the native refusal, an XML error with the rule's code.
            let none = try await client.post("/adobe-services/session", form: form, headers: ["pass_sfp": sfp])
            #expect(none.status == 404)
            #expect(none.header("Authzf-Error-Code") == "session_unknown")
            let unknownCode = try await client.post("/adobe-services/session", form: form + [("reg_code", "NOPE123")])
            #expect(unknownCode.status == 400)
            #expect(unknownCode.json["error"] as? String == "unknown_code")
            let unknownRequestor = try await client.post(
                "/adobe-services/session",
                form: [("requestor_id", "NOPE")], headers: ["pass_sfp": sfp])
            #expect(unknownRequestor.status == 400)
            #expect(unknownRequestor.json["error"] as? String == "unknown_requestor")
        }
    }

    @Test func authorizeAndShortAuthorizeRefuseBadTokensAndParameters() async throws {
        try await BackendFixture.with { service, client async throws in
            var web = WebVariantClient(http: client)
            let result = try await web.mediaToken(resource: "news") {
                try await WebVariantFlowTests.signIn(&$0, Demo.carol)
            }
            guard case .success = result else { Issue.record("media token: \(result)"); return }
            let authn = try #require(web.authn)
            let authz = try #require(web.authz["news"])
            let guid = try #require(WebVariantClient.xmlText(authn, "simpleTokenAuthenticationGuid"))
            let headers = web.headers

            func authorize(_ form: [(String, String)], _ extra: [String: String] = headers) async throws -> HTTPResult {
                try await client.post("/adobe-services/authorize", form: form, headers: extra)
            }
            let good = [("resource_id", "news"), ("requestor_id", "REF30"), ("authentication_token", authn)]
            let mso = try await authorize(good + [("mso_id", "Spectrum")])
            #expect(mso.status == 400)
            #expect(mso.json["error"] as? String == "mso_mismatch")
            let garbage = try await authorize([
                ("resource_id", "news"), ("requestor_id", "REF30"), ("authentication_token", "x"),
            ])
            #expect(garbage.status == 401)
            #expect(garbage.header("Authzf-Error-Code") == "token_malformed")
            let otherDevice = try await authorize(good, ["ap_21": "another-device"])
            #expect(otherDevice.status == 401)
            #expect(otherDevice.header("Authzf-Error-Code") == "device_mismatch")
            let noResource = try await authorize(Array(good.dropFirst()))
            #expect(noResource.status == 400)
            #expect((noResource.json["message"] as? String)?.contains("resource_id") == true)

            func short(_ form: [(String, String)], _ extra: [String: String] = headers) async throws -> HTTPResult {
                try await client.post("/adobe-services/shortAuthorize", form: form, headers: extra)
            }
            let base = [("authz_token", authz), ("requestor_id", "REF30")]
            let noGUID = try await short(base)
            #expect(noGUID.status == 400)
            #expect((noGUID.json["message"] as? String)?.contains("session_guid") == true)
            for (hashed, error) in [("true", "unsupported_parameter"), ("maybe", "invalid_parameter")] {
                let answer = try await short(base + [("session_guid", guid), ("hashed_guid", hashed)])
                #expect(answer.status == 400)
                #expect(answer.json["error"] as? String == error)
            }
            let unknown = try await short(base + [("session_guid", "no-such-session")])
            #expect(unknown.status == 401)
            #expect(unknown.header("Authzf-Error-Code") == "session_unknown")
            let badAuthZ = try await short([("authz_token", "x"), ("requestor_id", "REF30"), ("session_guid", guid)])
            #expect(badAuthZ.status == 401)
            #expect(badAuthZ.header("Authzf-Error-Code") == "token_malformed")
            let stranger = try await short(base + [("session_guid", guid)], ["ap_21": "another-device"])
            #expect(stranger.status == 401)
            #expect(stranger.header("Authzf-Error-Code") == "device_mismatch")
            let wrongResource = try await short(base + [("session_guid", guid), ("resource_id", "sports")])
            #expect(wrongResource.status == 401)
            #expect(wrongResource.header("Authzf-Error-Code") == "resource_mismatch")
            // None of it spent or broke anything: the right call still works.
            let media = try await short(base + [("session_guid", guid), ("hashed_guid", "false")])
            #expect(media.status == 200)
            #expect(service.verifyMediaToken(media.text, resourceID: "news").0 == .validToken)
            try await BadInputTests.expectStillServing(client)
        }
    }
}
