import Foundation
import MicroHTTP
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// Input a broken or hostile client sends: each is refused with a clear status, and the server keeps serving.
struct BadInputTests {
    /// Asserts that the backend still answers an ordinary SDK call.
    static func expectStillServing(_ client: TestHTTPClient, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let answer = try await client.get("/adobe-services/1.0/config/REF30")
        #expect(answer.status == 200, sourceLocation: sourceLocation)
        #expect((try? RequestorConfiguration.parse(xml: answer.text))?.requestorID == "REF30",
                sourceLocation: sourceLocation)
    }

    /// Sends one raw request line and headers (what URLSession would refuse to send) and returns the answer text.
    ///
    /// Waits as long as ``TestHTTPClient`` does (30 s; the server closes as soon as it has answered): the backend
    /// answers from a task, and in a full run on two cores the concurrency pool can be busy with other tests'
    /// blocking file work for longer than 10 s.
    static func raw(_ client: TestHTTPClient, _ head: String) async throws -> String {
        let port = UInt16(try #require(URL(string: client.baseURL)?.port))
        let connection = try RawConnection(port: port)
        connection.send(head + "\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        _ = await connection.waitForClose(timeout: .seconds(30))
        return connection.text
    }

    static func status(_ answer: String) -> Int? {
        answer.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
    }

    @Test(arguments: [
        "GET /adobe-services/1.0/config/REF30?client_type=%zz HTTP/1.1",
        "GET /adobe-services/1.0/authenticate/saml?requestor_id=%zz&mso_id=%&device_id=%G1 HTTP/1.1",
        "GET /adobe-services/1.0/config/%zz HTTP/1.1",
        "GET /adobe-services/1.0/logout?mso_id=%%%%&redirect_url=%zz HTTP/1.1",
    ])
    func malformedPercentEncodingIsAnsweredWithoutAServerError(line: String) async throws {
        try await BackendFixture.with { _, client async throws in
            let answer = try await Self.raw(client, line)
            let status = try #require(Self.status(answer), "no status line in \(answer.prefix(200))")
            #expect((200..<500).contains(status), "\(line) → \(answer.prefix(300))")
            try await Self.expectStillServing(client)
        }
    }

    @Test func malformedFormBodyIsAMissingParameter() async throws {
        try await BackendFixture.with { service, client async throws in
            let answer = try await client.send("POST", "/adobe-services/1.0/sessionDevice",
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data("requestor_id=%zz&device_id=%&=x&&%G0=1".utf8))
            #expect(answer.status == 400)
            #expect(answer.json["error"] as? String == "missing_parameter")
            #expect(service.sessions.isEmpty)
            try await Self.expectStillServing(client)
        }
    }

    @Test func unknownRequestorOnTheTokenEndpointsIs400() async throws {
        try await BackendFixture.with { _, client async throws in
            for endpoint in ["sessionDevice", "authorizeDevice", "deviceShortAuthorize"] {
                let answer = try await client.post("/adobe-services/1.0/\(endpoint)", form: [
                    ("requestor_id", "NOPE"), ("device_id", Demo.device), ("resource_id", "news"),
                    ("authentication_token", "x"), ("authz_token", "x"),
                ])
                #expect(answer.status == 400, "\(endpoint)")
                #expect(answer.json["error"] as? String == "unknown_requestor", "\(endpoint)")
            }
            try await Self.expectStillServing(client)
        }
    }

    @Test func unknownMVPDIsRefusedAtEveryStep() async throws {
        try await BackendFixture.with { _, client async throws in
            let start = try await client.get(
                "/adobe-services/1.0/authenticate/saml?requestor_id=REF30&mso_id=Nope&device_id=\(Demo.device)")
            #expect(start.status == 400)
            #expect(start.json["error"] as? String == "unknown_mvpd")
            let page = try await client.get("/mvpd/Nope/login?login=whatever")
            #expect(page.status == 404)
            #expect(page.text.contains("Unknown TV provider"))
            try await Self.expectStillServing(client)
        }
    }

    @Test func unknownOrForgedLoginIDShowsAnExpiredLinkPage() async throws {
        try await BackendFixture.with { service, client async throws in
            let page = try await client.get("/mvpd/Dish/login?login=00000000-0000-0000-0000-000000000000")
            #expect(page.status == 400)
            #expect(page.text.contains("This sign-in link has expired"))
            let posted = try await client.post("/mvpd/Dish/login",
                form: [("login", "forged"), ("username", "carol"), ("password", "carol123")])
            #expect(posted.status == 400)
            #expect(service.sessions.isEmpty)
        }
    }

    @Test func unknownResourceIsRefusedAndTheNextRequestWorks() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.carol)
            let answer = try await sdk.authorize(resource: "<rss><channel><title>", authn: authn)
            #expect(answer.status == 403)
            #expect(try await sdk.authorize(resource: "news", authn: authn).status == 200)
        }
    }

    @Test func bodyOverTheOneMegabyteCapIs413() async throws {
        try await BackendFixture.with { service, client async throws in
            let limit = HTTPServerConfiguration().maxBodySize
            let big = "requestor_id=REF30&device_id=" + String(repeating: "a", count: limit)
            // The server may answer 413 and close before the client has finished sending the megabyte; then the
            // client sees a broken pipe instead of the answer. Either way nothing is stored (checked below).
            do {
                let answer = try await client.send("POST", "/adobe-services/1.0/sessionDevice",
                    headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(big.utf8))
                #expect(answer.status == 413)
                #expect(answer.json["error"] as? String == "payload_too_large")
            } catch let error as NSError where error.domain == NSURLErrorDomain {}
            let announced = try await Self.raw(client,
                "POST /adobe-services/1.0/authorizeDevice HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded"
                    + "\r\nContent-Length: \(limit * 4)")
            #expect(Self.status(announced) == 413)
            #expect(service.sessions.isEmpty)
            try await Self.expectStillServing(client)
        }
    }

    @Test func unknownPathAndWrongMethodAreJSONErrors() async throws {
        try await BackendFixture.with { _, client async throws in
            let missing = try await client.get("/adobe-services/1.0/completeAuthentication")
            #expect(missing.status == 404)
            #expect(missing.json["error"] as? String == "not_found")
            let wrongMethod = try await client.get("/adobe-services/1.0/authorizeDevice")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow")?.contains("POST") == true)
            try await Self.expectStillServing(client)
        }
    }

    @Test func hugeTokenTextIsRefusedAsMalformed() async throws {
        try await BackendFixture.with { _, client async throws in
            let junk = "<signatureInfo>" + String(repeating: "A", count: 200_000) + "<signatureInfo><simpleAuthenticationToken>"
            let answer = try await SDKClient(client: client).authorize(resource: "news", authn: junk)
            #expect(answer.status == 401)
            #expect(answer.header("Authzf-Error-Code") == "token_malformed")
            try await Self.expectStillServing(client)
        }
    }
}

// MARK: - REST API v2: every refusal in the enhanced error format

extension BadInputTests {
    /// Found by schemathesis: on `/api/v2/…` the server's own refusals (a malformed path, an unknown route, a method
    /// not served, a body over the cap) came in the console's error format, and a combining mark right after a slash
    /// (`/api/v2/\u{1AD8}/…`: the slash and the mark are one Swift character) escaped the `/api/v2/` prefix checks
    /// and the router, which split paths on characters, matched no route for it.
    @Test(arguments: [
        ("GET /api/v2/%E1%AB%98/configuration HTTP/1.1", 401),
        ("GET /api/v2/REF30/%E1%AB%98profiles HTTP/1.1", 404),
        ("GET /api/v2/%C3%A4%07/configuration HTTP/1.1", 400),
        ("GET /api/v2/REF30/nothing/here HTTP/1.1", 404),
        ("DELETE /api/v2/REF30/profiles HTTP/1.1", 405),
        ("POST /api/v2/REF30/decisions/authorize/Dish HTTP/1.1\r\nContent-Length: 999999999", 413),
    ])
    func everyRefusalOnRESTv2IsAnEnhancedError(line: String, status: Int) async throws {
        try await BackendFixture.with { _, client async throws in
            let answer = try await Self.raw(client, line)
            #expect(Self.status(answer) == status, "\(answer.prefix(300))")
            let body = answer.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any], "\(answer)")
            #expect(json["status"] as? Int == status, "\(json)")
            #expect((json["code"] as? String)?.isEmpty == false)
            #expect(json["action"] as? String != nil && json["helpUrl"] as? String != nil, "the enhanced format: \(json)")
            #expect(json["error"] == nil, "not the console's format: \(json)")
            try await Self.expectStillServing(client)
        }
    }
}
