import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// The SDK web login (spec §5.2.2–5.2.4): login URL → MVPD form → SAML consumer → app scheme → `sessionDevice`.
struct WebLoginTests {
    @Test(arguments: ["/adobe-services", "/adobe-services/1.0"])
    func loginEndsAtTheAppAndSessionDeviceHandsOutADeviceBoundSignedToken(prefix: String) async throws {
        try await BackendFixture.with { service, client async throws in
            let web = WebLogin(client: client)
            let start = "\(prefix)/authenticate/saml?requestor_id=REF30&mso_id=Cablevision&device_id=\(Demo.device)"
                + "&redirect_url=\(TestHTTPClient.escape(PassConstants.ADOBEPASS_REDIRECT_URL))"
            let (page, early) = try await web.follow(start)
            #expect(early == nil)
            #expect(page.status == 200)
            #expect(page.text.contains("Optimum sign-in"))
            #expect(page.text.contains("Reference Network"))
            let (_, end) = try await web.submit(page, username: "alice", password: "alice123")
            #expect(end == "adobepass://ios.app")

            let answer = try await SDKClient(client: client, prefix: prefix)
                .sessionDevice(requestor: "REF30", device: Demo.device)
            #expect(answer.status == 200)
            let token = try SignedToken<AuthNToken>.parse(try SDKResponses.parseAuthnToken(answer.text))
            #expect(token.verify(with: service.signingKey.publicKey))
            #expect(!token.verify(with: TokenSigningKey().publicKey))
            #expect(token.body.matches(deviceID: Demo.device))
            #expect(!token.body.matches(deviceID: Demo.otherDevice))
            #expect(token.body.requestorID == "REF30")
            #expect(token.body.mvpdID == "Cablevision")
            #expect(token.body.samlNameID == "Cablevision-alice")
            let ttl = token.body.expires.timeIntervalSince(service.now())
            #expect(abs(ttl - 86400) < 10, "authN TTL is the MVPD's: \(ttl)")
        }
    }

    /// The iOS/Android SDK tunnels `_method=GET` through its POST; other clients post plainly or use `session`.
    @Test(arguments: [
        ("/adobe-services/1.0/sessionDevice", true), ("/adobe-services/1.0/sessionDevice", false),
        ("/adobe-services/session", true), ("/adobe-services/session", false),
    ])
    func sessionDeviceAnswersWithOrWithoutMethodTunnelling(path: String, tunnelled: Bool) async throws {
        try await BackendFixture.with { _, client async throws in
            _ = try await SDKClient(client: client).signIn(Demo.carol)
            var form = [("requestor_id", "REF30"), ("device_id", Demo.device)]
            if tunnelled { form.insert(("_method", "GET"), at: 0) }
            let answer = try await client.post(path, form: form)
            #expect(answer.status == 200)
            let token = try SignedToken<AuthNToken>.parse(try SDKResponses.parseAuthnToken(answer.text))
            #expect(token.body.mvpdID == "Dish")
        }
    }

    @Test func sessionDeviceCarriesTheSubscribersUserMetadata() async throws {
        try await BackendFixture.with { _, client async throws in
            _ = try await SDKClient(client: client).signIn(Demo.alice)
            let answer = try await SDKClient(client: client).sessionDevice(requestor: "REF30", device: Demo.device)
            let json = try #require(SDKResponses.parseUserMeta(answer.text))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let data = try #require(object["data"] as? [String: Any])
            #expect(data["householdID"] as? String == "hh-alice")
            #expect(data["zip"] as? [String] == ["10001"])
        }
    }

    @Test func loginEndsAtACustomRedirectURLWithItsQueryKept() async throws {
        try await BackendFixture.with { service, client async throws in
            let redirect = "com.example.tvapp://auth/done?state=42"
            let end = try await WebLogin(client: client).login(
                requestor: "KIDSNET", mvpd: "Spectrum", device: Demo.device, username: "bob", password: "bob123",
                redirect: redirect)
            #expect(end == redirect)
            #expect(service.sessions.map(\.requestorID) == ["KIDSNET"])
        }
    }

    @Test func sessionIsOnlyForTheDeviceThatSignedIn() async throws {
        try await BackendFixture.with { _, client async throws in
            _ = try await SDKClient(client: client).signIn(Demo.carol)
            let other = try await SDKClient(client: client).sessionDevice(requestor: "REF30", device: Demo.otherDevice)
            #expect(other.status == 404)
            #expect(other.header("Authzf-Error-Code") == "session_unknown")
            #expect(throws: SDKResponseError.self) { try SDKResponses.parseAuthnToken(other.text) }
        }
    }

    @Test func wrongPasswordShowsTheFormAgainWithTheMessageAndOpensNoSession() async throws {
        try await BackendFixture.with { service, client async throws in
            let web = WebLogin(client: client)
            let (page, _) = try await web.follow(
                "/adobe-services/authenticate/saml?requestor_id=REF30&mso_id=Dish&device_id=\(Demo.device)")
            let (retry, end) = try await web.submit(page, username: "carol", password: "wrong")
            #expect(end == nil)
            #expect(retry.status == 200)
            #expect(retry.text.contains("The username or password is not correct"))
            #expect(retry.text.contains("role=\"alert\""))
            #expect(service.sessions.isEmpty)
            let none = try await SDKClient(client: client).sessionDevice(requestor: "REF30", device: Demo.device)
            #expect(none.status == 404)

            // The form shown again still works.
            let (_, second) = try await web.submit(retry, username: "carol", password: "carol123")
            #expect(second == "adobepass://ios.app")
            #expect(service.sessions.count == 1)
        }
    }

    @Test func anotherMVPDsSubscriberCannotSignIn() async throws {
        try await BackendFixture.with { service, client async throws in
            let end = try await WebLogin(client: client).login(
                requestor: "REF30", mvpd: "Dish", device: Demo.device, username: "alice", password: "alice123")
            #expect(end == nil)
            #expect(service.sessions.isEmpty)
        }
    }

    @Test(arguments: ["adobepass://ios.app", "myapp://cb?x=1"])
    func cancelReturnsToTheAppWithUserCancelled(redirect: String) async throws {
        try await BackendFixture.with { service, client async throws in
            let web = WebLogin(client: client)
            let (page, _) = try await web.follow(
                "/adobe-services/1.0/authenticate/saml?requestor_id=REF30&mso_id=Spectrum&device_id=\(Demo.device)"
                    + "&redirect_url=\(TestHTTPClient.escape(redirect))")
            let (_, end) = try await web.submit(page, username: "", password: "", cancel: true)
            let separator = redirect.contains("?") ? "&" : "?"
            #expect(end == "\(redirect)\(separator)error=user_cancelled")
            #expect(service.sessions.isEmpty)

            // The cancelled sign-in link is spent.
            let (again, _) = try await web.submit(page, username: "bob", password: "bob123")
            #expect(again.status == 400)
            #expect(again.text.contains("expired"))
            #expect(service.sessions.isEmpty)
        }
    }

    @Test(arguments: ["requestor_id", "mso_id", "device_id"])
    func authenticateWithoutARequiredParameterIs400JSON(missing: String) async throws {
        try await BackendFixture.with { service, client async throws in
            let parameters = [("requestor_id", "REF30"), ("mso_id", "Dish"), ("device_id", Demo.device)]
                .filter { $0.0 != missing }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
            let answer = try await client.get("/adobe-services/1.0/authenticate/saml?\(parameters)")
            #expect(answer.status == 400)
            #expect(answer.header("Content-Type")?.contains("json") == true)
            #expect(answer.json["error"] as? String == "missing_parameter")
            #expect((answer.json["message"] as? String)?.contains(missing) == true)
            #expect(answer.header("Location") == nil)
        }
    }

    @Test func mvpdNotIntegratedWithTheRequestorIsRefused() async throws {
        try await BackendFixture.with { _, client async throws in
            // Kids Network integrates Spectrum and DISH, not Optimum.
            let answer = try await client.get(
                "/adobe-services/1.0/authenticate/saml?requestor_id=KIDSNET&mso_id=Cablevision&device_id=\(Demo.device)")
            #expect(answer.status == 400)
            #expect(answer.json["error"] as? String == "unknown_mvpd")
            #expect((answer.json["message"] as? String)?.contains("KIDSNET") == true)
        }
    }

    @Test func unknownRequestorCannotStartALogin() async throws {
        try await BackendFixture.with { _, client async throws in
            let answer = try await client.get(
                "/adobe-services/authenticate/saml?requestor_id=NOPE&mso_id=Dish&device_id=\(Demo.device)")
            #expect(answer.status == 400)
            #expect(answer.json["error"] as? String == "unknown_requestor")
        }
    }

    @Test func alteredSAMLResponseOpensNoSession() async throws {
        try await BackendFixture.with { service, client async throws in
            let web = WebLogin(client: client)
            let (page, _) = try await web.follow(
                "/adobe-services/authenticate/saml?requestor_id=REF30&mso_id=Dish&device_id=\(Demo.device)")
            let action = try #require(WebLogin.capture(page.text, #"<form method="post" action="([^"]+)""#))
            let login = try #require(WebLogin.capture(page.text, #"name="login" value="([^"]+)""#))
            let posted = try await client.post(action, form: [
                ("login", login), ("username", "dave"), ("password", "dave123"), ("action", "signin"),
            ])
            let location = try #require(posted.header("Location"))
            #expect(location.hasPrefix("/sp/saml/SAMLAssertionConsumer?"))
            // Swap the subscriber in the assertion (dave → carol, who is entitled to everything).
            let components = try #require(URLComponents(string: location))
            let assertion = try #require(components.queryItems?.first { $0.name == "SAMLResponse" }?.value)
            let decoded = String(decoding: try #require(Data(base64Encoded: assertion)), as: UTF8.self)
            #expect(decoded.contains("<saml:NameID"))
            #expect(decoded.contains(">Dish-dave<"))
            let forged = Data(decoded.replacingOccurrences(of: "dave", with: "carol").utf8).base64EncodedString()
            let answer = try await client.get(
                "/sp/saml/SAMLAssertionConsumer?SAMLResponse=\(TestHTTPClient.escape(forged))&RelayState=\(login)")
            #expect(answer.status == 400)
            #expect(answer.header("Authzf-Error-Code") == "invalid_saml_response")
            #expect(answer.text.contains("signature does not match"))
            #expect(service.sessions.isEmpty)
        }
    }
}
