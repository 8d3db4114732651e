import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// An MVPD that signs in through OAuth (Spectrum, `loginPage.flow = oauth`, spec §5.2.2): the SP sends the browser to
/// the MVPD's authorization endpoint; the MVPD's form takes `IDToken1`/`IDToken2`, shows a meta-refresh page and sends
/// the browser back to `/adobe-services/oauth2?code=…&state=…`; the SP redeems the code (once) and sends the browser to
/// the app. The MVPD's token endpoint redeems codes by the same rule.
struct OAuthLoginTests {
    static let start = "/adobe-services/authenticate/saml?requestor_id=REF30&mso_id=Spectrum&device_id=\(Demo.device)"

    /// Signs bob in up to the MVPD's redirect back to the SP; returns that redirect's path.
    static func upToTheReturn(_ client: TestHTTPClient) async throws -> String {
        let first = try await client.get(start)
        #expect(first.status == 302)
        let authorize = try #require(first.header("Location"))
        let form = try await client.get(authorize)
        #expect(form.text.contains(#"name="IDToken1""#) && form.text.contains(#"name="IDToken2" type="password""#))
        let login = try #require(WebLogin.capture(form.text, #"name="login" value="([^"]+)""#))
        let refresh = try await client.post("/mvpd/Spectrum/login", form: [
            ("login", login), ("IDToken1", "bob"), ("IDToken2", "bob123"), ("action", "signin"),
        ])
        let resume = try #require(WebLogin.capture(refresh.text, #"http-equiv="refresh" content="0; url=([^"]+)""#))
        #expect(resume.hasPrefix("/mvpd/Spectrum/resume?login="))
        let back = try await client.get(resume)
        #expect(back.status == 302)
        return try #require(back.header("Location"))
    }

    @Test func theSPSendsTheBrowserToTheMVPDsAuthorizationEndpoint() async throws {
        try await BackendFixture.with { _, client async throws in
            let first = try await client.get(Self.start)
            #expect(first.status == 302)
            let location = try #require(first.header("Location"))
            let components = try #require(URLComponents(string: location))
            #expect(components.path == "/mvpd/Spectrum/oauth/authorize")
            let query = Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(query["response_type"] == "code")
            #expect(query["client_id"] == "adobepass")
            #expect(query["redirect_uri"] == "/adobe-services/oauth2")
            #expect(query["state"]?.isEmpty == false)
        }
    }

    @Test func theReturnRedeemsTheCodeOnceAndOpensTheSession() async throws {
        try await BackendFixture.with { service, client async throws in
            let back = try await Self.upToTheReturn(client)
            let components = try #require(URLComponents(string: back))
            #expect(components.path == "/adobe-services/oauth2")
            #expect(components.queryItems?.contains { $0.name == "code" } == true)
            #expect(service.sessions.isEmpty, "nothing is recorded before the SP's return")
            let done = try await client.get(back)
            #expect(done.status == 302)
            #expect(done.header("Location") == "adobepass://ios.app")
            #expect(service.sessions.map(\.username) == ["bob"])
            let again = try await client.get(back)
            #expect(again.status == 400)
            #expect(service.sessions.count == 1)
        }
    }

    @Test func theTokenEndpointRedeemsACodeWhichTheSPThenCannotReuse() async throws {
        try await BackendFixture.with { service, client async throws in
            let back = try await Self.upToTheReturn(client)
            let code = try #require(URLComponents(string: back)?.queryItems?.first { $0.name == "code" }?.value)
            let wrongClient = try await client.post("/mvpd/Spectrum/oauth/token", form: [
                ("grant_type", "authorization_code"), ("code", code), ("client_id", "someone"), ("redirect_uri", "/adobe-services/oauth2"),
            ])
            #expect(wrongClient.status == 401)
            #expect(wrongClient.json["error"] as? String == "invalid_client")
            let token = try await client.post("/mvpd/Spectrum/oauth/token", form: [
                ("grant_type", "authorization_code"), ("code", code), ("client_id", "adobepass"), ("redirect_uri", "/adobe-services/oauth2"),
            ])
            #expect(token.status == 200, "\(token.text)")
            #expect(token.json["token_type"] as? String == "Bearer")
            #expect(token.json["user_id"] as? String == "Spectrum-bob")
            #expect((token.json["access_token"] as? String)?.isEmpty == false)
            let late = try await client.get(back)
            #expect(late.status == 400)
            #expect(late.header("Authzf-Error-Code") == "invalid_grant")
            #expect(service.sessions.isEmpty)
        }
    }

    @Test func anExpiredCodeIsRefused() async throws {
        try await BackendFixture.with { service, client async throws in
            let back = try await Self.upToTheReturn(client)
            service.clock.advance(by: 61)
            let late = try await client.get(back)
            #expect(late.status == 400)
            #expect(late.text.contains("expired"))
            #expect(service.sessions.isEmpty)
        }
    }

    @Test(arguments: ["state=forged&code=abc", "code=abc", "error=access_denied&state=forged"])
    func aReturnWithoutAPendingSignInIsRefused(query: String) async throws {
        try await BackendFixture.with { service, client async throws in
            _ = try await Self.upToTheReturn(client)
            let answer = try await client.get("/adobe-services/oauth2?\(query)")
            #expect(answer.status == 400)
            #expect(answer.header("Authzf-Error-Code") == "unknown_state")
            #expect(service.sessions.isEmpty)
        }
    }

    @Test(arguments: [("client_id", "someone"), ("redirect_uri", "https://evil.example/cb"), ("response_type", "token")])
    func theAuthorizationEndpointRefusesAnotherClient(name: String, value: String) async throws {
        try await BackendFixture.with { _, client async throws in
            let first = try await client.get(Self.start)
            let location = try #require(first.header("Location"))
            var components = try #require(URLComponents(string: location))
            components.queryItems = components.queryItems?.map { $0.name == name ? URLQueryItem(name: name, value: value) : $0 }
            let answer = try await client.get(try #require(components.string))
            #expect(answer.status == 400)
            #expect(!answer.text.contains("type=\"password\""))
        }
    }
}
