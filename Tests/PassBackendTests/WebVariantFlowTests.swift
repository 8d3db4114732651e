import Foundation
import MicroHTTP
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// The web (JS-SDK / browser) variant end to end (spec §5.2.7; issue 17 A.1, A.2, A.5): a browser-based client,
/// written in the test from what yt-dlp sends, against the real backend over HTTP on 127.0.0.1.
struct WebVariantFlowTests {
    /// Every request the backend answered, as `METHOD path`, so a test can count the calls a client needed.
    struct CountingBackend: HTTPResponder {
        actor Seen {
            var requests: [String] = []
            func append(_ request: String) { requests.append(request) }
            func clear() { requests.removeAll() }
        }

        let backend: PassBackend
        let seen = Seen()

        func respond(to request: Request) async -> Response {
            await seen.append("\(request.method) \(request.path)")
            return await backend.respond(to: request)
        }

        func judgeHead(_ head: Request) -> Response? { backend.judgeHead(head) }
    }

    static func with(_ body: (BackendService, CountingBackend, TestHTTPClient) async throws -> Void) async throws {
        let service = BackendService(configuration: try BackendFixture.configuration(), logger: TestServer.logger)
        let counting = CountingBackend(backend: PassBackend(service: service))
        try await TestServer.with(counting) { _, client async throws in try await body(service, counting, client) }
    }

    /// Device, client registration, registration code and the MVPD's sign-in, as one step of the client.
    static func signIn(_ web: inout WebVariantClient, _ account: Demo.Account) async throws {
        let registered = try await web.registerDevice()
        try #require(registered.status == 200, "indiv/devices: \(registered.status) \(registered.text)")
        _ = try await web.registerClient()
        let code = try await web.regcode()
        let end = try await web.signIn(
            mvpd: account.mvpd, username: account.username, password: account.password, regcode: code)
        try #require(end == "https://www.reference.example/watch/1", "the sign-in did not reach the Programmer's page")
    }

    @Test(arguments: [Demo.alice, Demo.bob, Demo.carol])
    func browserSignsInWithARegistrationCodeAndGetsAVerifiableMediaToken(account: Demo.Account) async throws {
        try await Self.with { service, _, client async throws in
            var web = WebVariantClient(http: client)
            let registered = try await web.registerDevice(fingerprint: "browser-\(account.username)")
            #expect(registered.status == 200)
            #expect(web.deviceID.count == 64 && web.deviceID.allSatisfy(\.isHexDigit), "deviceId: \(web.deviceID)")
            #expect(!(registered.header("pass_sfp") ?? "").isEmpty)
            _ = try await web.registerClient()
            let code = try await web.regcode()
            let end = try await web.signIn(
                mvpd: account.mvpd, username: account.username, password: account.password, regcode: code)
            #expect(end == "https://www.reference.example/watch/1")
            // The sign-in landed on the code's device, i.e. the browser's.
            #expect(service.sessions.map(\.deviceID) == [web.deviceID])
            #expect(web.cookies["pass_sfp"] != nil, "the sign-in sets the device cookie")

            let session = try await web.session(regcode: code)
            #expect(session.status == 200, "\(session.text)")
            let authn = try #require(WebVariantClient.xmlText(session.text, "authnToken"))
            let parsed = try SignedToken<AuthNToken>.parse(authn)
            #expect(parsed.verify(with: service.signingKey.publicKey))
            #expect(parsed.body.mvpdID == account.mvpd)
            #expect(parsed.body.requestorID == "REF30")
            #expect(parsed.body.matches(deviceID: web.deviceID))

            let authorize = try await web.authorize(resource: "news", authn: authn)
            #expect(authorize.status == 200, "\(authorize.text)")
            let authz = try #require(WebVariantClient.xmlText(authorize.text, "authzToken"))
            #expect(try SignedToken<AuthZToken>.parse(authz).body.matches(deviceID: web.deviceID))
            #expect(WebVariantClient.xmlText(authorize.text, "userMeta")?.contains("userID") == true, "userMeta=1")

            let media = try await web.shortAuthorize(authz: authz, authn: authn)
            #expect(media.status == 200, "\(media.text)")
            #expect(media.text.hasPrefix("<signatureInfo>"))
            let (verdict, token) = service.verifyMediaToken(media.text, resourceID: "news")
            #expect(verdict == .validToken)
            #expect(token?.body.sessionGUID == parsed.body.guid)
            #expect(token?.body.mvpdID == account.mvpd)
        }
    }

    /// yt-dlp's loop end to end, including the case the brief names: with a cached authN and authZ token the next
    /// media token is exactly one request (`shortAuthorize`) — for the same browser, and for a later run that kept
    /// only the tokens (no cookies, no `ap_21`/`pass_sfp`: yt-dlp registers the device only when it must sign in).
    @Test(arguments: [false, true])
    func cachedTokensNeedExactlyOneCallForTheNextMediaToken(laterRun: Bool) async throws {
        try await Self.with { service, counting, client async throws in
            var web = WebVariantClient(http: client)
            let first = try await web.mediaToken(resource: "sports") { try await Self.signIn(&$0, Demo.alice) }
            guard case .success(let token) = first else { Issue.record("first media token: \(first)"); return }
            #expect(service.verifyMediaToken(token, resourceID: "sports").0 == .validToken)

            if laterRun {
                let cached = (web.authn, web.authz)
                web = WebVariantClient(http: client)
                (web.authn, web.authz) = cached
            }
            await counting.seen.clear()
            web.calls.removeAll()
            var signedIn = false
            let second = try await web.mediaToken(resource: "sports") { _ in signedIn = true }
            guard case .success(let next) = second else { Issue.record("second media token: \(second)"); return }
            #expect(!signedIn)
            #expect(next != token)
            #expect(await counting.seen.requests == ["POST /adobe-services/shortAuthorize"])
            #expect(web.calls == ["POST /adobe-services/shortAuthorize"])
            #expect(service.verifyMediaToken(next, resourceID: "sports").0 == .validToken)
        }
    }

    /// A TV's registration code signed in through `authenticate/saml?reg_code=…` on a second screen's browser: the TV's
    /// REST polling sees the sign-in, and the code's life records the attempt (what the console's card reads).
    @Test func secondScreenSignInThroughAuthenticateSamlReachesTheTV() async throws {
        try await BackendFixture.with { service, client async throws in
            let tv = RESTApp(client: client, service: service)
            let code = try await tv.regcode(device: "living-room-tv")
            #expect(try await tv.get("/api/v1/checkauthn/\(code)").status == 403)
            var phone = WebVariantClient(http: client)
            let end = try await phone.signIn(mvpd: "Dish", username: "carol", password: "carol123", regcode: code)
            #expect(end == "https://www.reference.example/watch/1")
            #expect(try await tv.get("/api/v1/checkauthn/\(code)").status == 200)
            let authn = try await tv.get(
                "/api/v1/tokens/authn", [("requestor", "REF30"), ("deviceId", "living-room-tv")])
            #expect(authn.status == 200, "\(authn.text)")
            #expect(authn.json["mvpd"] as? String == "Dish")
            let life = try #require(service.regcodeLife(code))
            #expect(life.activated)
            #expect(life.attempts.map(\.via) == ["authenticate/saml"])
            #expect(life.attempts.map(\.outcome) == ["accepted"])
            #expect(service.sessions.map(\.deviceID) == ["living-room-tv"])
        }
    }

    /// After sign-in the browser's cookie alone names the device: `session` without `reg_code` or headers.
    @Test func sessionCookieAloneFindsTheSignIn() async throws {
        try await Self.with { service, _, client async throws in
            var web = WebVariantClient(http: client)
            try await Self.signIn(&web, Demo.carol)
            web.headers = [:]
            let session = try await web.session()
            #expect(session.status == 200, "\(session.text)")
            let authn = try #require(WebVariantClient.xmlText(session.text, "authnToken"))
            #expect(try SignedToken<AuthNToken>.parse(authn).body.matches(deviceID: web.deviceID))

            // Without the cookie nothing names the device.
            web.sendsCookies = false
            let anonymous = try await web.session()
            #expect(anonymous.status == 400)
            #expect(anonymous.json["error"] as? String == "missing_parameter")
            _ = service
        }
    }

    /// A session ended on the server answers `<pendingLogout …/>` on `session`, `authorize` and `shortAuthorize`; the
    /// client wipes its cache, signs in again and gets its media token.
    @Test(arguments: ["revoke", "logout"])
    func pendingLogoutMakesTheClientSignInAgain(ending: String) async throws {
        try await Self.with { service, _, client async throws in
            var web = WebVariantClient(http: client)
            let first = try await web.mediaToken(resource: "news") { try await Self.signIn(&$0, Demo.bob) }
            guard case .success = first else { Issue.record("first media token: \(first)"); return }
            let authn = try #require(web.authn)
            let authz = try #require(web.authz["news"])
            if ending == "revoke" {
                #expect(service.revokeSessions(deviceID: web.deviceID) == 1)
                let session = try await web.session()
                #expect(session.status == 200)
                #expect(session.text.contains("<pendingLogout"))
                #expect(session.text.contains(#"mso_id="Spectrum""#))
                #expect(throws: SDKResponseError.pendingLogout) { try SDKResponses.parseAuthnToken(session.text) }
            } else {
                let logout = try await client.get(
                    "/adobe-services/logout?mso_id=Spectrum&requestor_id=REF30"
                        + "&device_id=\(web.deviceID)&redirect_url=\(TestHTTPClient.escape("https://www.reference.example/"))"
                )
                #expect(logout.status == 302)
                #expect(service.sessions.isEmpty)
            }
            for answer in [
                try await web.authorize(resource: "kids", authn: authn),
                try await web.shortAuthorize(authz: authz, authn: authn),
            ] {
                #expect(answer.status == 200, "\(answer.text)")
                #expect(
                    answer.text.contains("<pendingLogout requestor_id=\"REF30\" mso_id=\"Spectrum\"/>"),
                    "\(answer.text)")
            }

            var signIns = 0
            let again = try await web.mediaToken(resource: "news") { web in
                signIns += 1
                try await Self.signIn(&web, Demo.bob)
            }
            guard case .success(let token) = again else { Issue.record("after pendingLogout: \(again)"); return }
            #expect(signIns == 1)
            #expect(service.verifyMediaToken(token, resourceID: "news").0 == .validToken)
        }
    }

    /// The MVPD's refusal is an `<error><details>…</details></error>` document on a 200, which web clients read.
    @Test func mvpdRefusalIsAnErrorDocumentWithTheDetails() async throws {
        try await Self.with { _, _, client async throws in
            var web = WebVariantClient(http: client)
            let result = try await web.mediaToken(resource: "movies") { try await Self.signIn(&$0, Demo.alice) }
            guard case .failure(.refused(let details)) = result else { Issue.record("not refused: \(result)"); return }
            #expect(details.contains("not authorized"))
            #expect(details.contains("movies"))
            let answer = try await web.authorize(resource: "movies", authn: try #require(web.authn))
            #expect(answer.status == 200)
            #expect(answer.header("Authzf-Error-Code") == "user_not_authorized")
            #expect(answer.text.hasPrefix("<error>"))
            #expect(throws: SDKResponseError.denied(details: details)) { try SDKResponses.parseAuthzToken(answer.text) }
            #expect(web.authz["movies"] == nil)
        }
    }
}
