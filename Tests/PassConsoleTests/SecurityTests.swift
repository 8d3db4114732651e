import Foundation
import MicroHTTP
import PassTestSupport
import Testing

/// The console's door rules (issue 4 §5): Host and Origin checked, changes need the page's CSRF token, and beyond
/// loopback every API call needs the access token.
@Suite(.serialized)
struct SecurityTests {
    @Test func changesWithoutTheCSRFTokenOrFromAnotherOriginAreRefused() async throws {
        try await ConsoleFixture.with { fixture in
            let clear = #"{"domain":"phone/team:TEAM1234"}"#
            let noToken = await fixture.post("/api/storage/clear", json: clear, headers: [("Host", "127.0.0.1:8080")])
            #expect(noToken.status == 403)
            #expect(noToken.json["error"] as? String == "csrf_token_missing")
            let wrongOrigin = await fixture.post("/api/storage/clear", json: clear,
                headers: fixture.pageHeaders + [("Origin", "http://evil.example")])
            #expect(wrongOrigin.status == 403)
            #expect(wrongOrigin.json["error"] as? String == "bad_origin")
            let sameOrigin = await fixture.post("/api/storage/clear", json: clear,
                headers: fixture.pageHeaders + [("Origin", "http://127.0.0.1:8080")])
            #expect(sameOrigin.status == 200)
            // GET with a changed method is still a GET: reading needs no token
            #expect(await fixture.get("/api/storage").status == 200)
        }
    }

    @Test func aForeignHostIsRefusedSoDNSRebindingCannotReachTheAPI() async throws {
        try await ConsoleFixture.with { fixture in
            let answer = await fixture.get("/api/overview", headers: [("Host", "attacker.example:8080")])
            #expect(answer.status == 403)
            #expect(answer.json["error"] as? String == "bad_host")
            #expect(await fixture.get("/api/overview", headers: [("Host", "localhost:8080")]).status == 200)
        }
    }

    @Test func ingestTakesOnlyNDJSONOrJSONSoAFormCannotForgeEvents() async throws {
        try await ConsoleFixture.with { fixture in
            let answer = await fixture.post("/api/ingest", body: Data("x=1".utf8),
                headers: [("Host", "127.0.0.1:8080"), ("Content-Type", "text/plain")])
            #expect(answer.status == 415)
        }
    }

    @Test func aMethodIngestDoesNotHaveIs405WhateverTheBodyTypeButTheTokenComesFirst() async throws {
        try await ConsoleFixture.with { fixture in
            for method in ["PUT", "TRACE", "DELETE"] {
                let answer = await fixture.send(method, "/api/ingest",
                    headers: [("Host", "127.0.0.1:8080"), ("Content-Type", "text/plain")], body: Data("x=1".utf8))
                #expect(answer.status == 405, "\(method)")
                #expect(answer.json["error"] as? String == "method_not_allowed")
            }
        }
        try await ConsoleFixture.with(accessToken: "secret-token") { fixture in
            let refused = await fixture.send("PUT", "/api/ingest", headers: [("Host", "127.0.0.1:8080")])
            #expect(refused.status == 401)
            let foreign = await fixture.send("PUT", "/api/ingest",
                headers: [("Host", "127.0.0.1:8080"), ("Authorization", "Bearer secret-token"), ("Origin", "http://evil.example")])
            #expect(foreign.status == 403)
        }
    }

    @Test func beyondLoopbackEveryAPICallNeedsTheAccessTokenOverRealHTTP() async throws {
        try await ConsoleFixture.with(accessToken: "secret-token") { fixture in
            try fixture.console.start()
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            let refused = try await client.get("/api/overview")
            #expect(refused.status == 401)
            #expect(refused.header("WWW-Authenticate") == "Bearer")
            let allowed = try await client.get("/api/overview", headers: ["Authorization": "Bearer secret-token"])
            #expect(allowed.status == 200)
            #expect(allowed.json["tokenRequired"] as? Bool == true)
            #expect(try await client.get("/api/events?access_token=secret-token").status == 200)
            #expect(try await client.get("/api/events?access_token=wrong").status == 401)
            // The page itself loads without the token (it then asks for it)
            #expect(try await client.get("/").status == 200)
        }
    }

    @Test func beyondLoopbackTheMachinesOwnAddressesAndThePublicURLAreAcceptedHosts() async throws {
        try await ConsoleFixture.with(accessToken: "secret-token", host: "0.0.0.0", publicURL: "http://devbox.example:8080") { fixture in
            let token = ("Authorization", "Bearer secret-token")
            for address in LocalAddresses.interfaceAddresses() {
                let answer = await fixture.get("/api/overview", headers: [("Host", "\(address):8080"), token])
                #expect(answer.status == 200, "Host \(address)")
            }
            #expect(await fixture.get("/api/overview", headers: [("Host", "DevBox.example:8080"), token]).status == 200)
            #expect(await fixture.get("/api/overview", headers: [("Host", "attacker.example"), token]).status == 403)
            #expect(await fixture.get("/api/overview", headers: [("Host", "devbox.example:8080")]).status == 401)
        }
    }

    @Test func anEmptyTokenIsNoTokenAndTokensAreComparedWhole() {
        #expect(!SecretComparison.matches("", ""))
        #expect(!SecretComparison.matches(nil, "abc"))
        #expect(!SecretComparison.matches("ab", "abc"))
        #expect(!SecretComparison.matches("abcd", "abc"))
        #expect(SecretComparison.matches("abc", "abc"))
        #expect(SecretComparison.bearerToken("bearer abc") == "abc")
    }
}
