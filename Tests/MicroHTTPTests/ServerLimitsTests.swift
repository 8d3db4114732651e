import Foundation
import MicroHTTP
import PassTestSupport
import Testing

struct ServerLimitsTests {
    static func router() -> Router {
        var router = Router()
        router.post("/echo") { request in .text("\(request.body.count)") }
        router.get("/slow") { _ in
            try await Task.sleep(for: .milliseconds(400))
            return .text("done")
        }
        router.get("/redirect") { _ in
            var response = Response.redirect(to: "adobepass://ios.app?ok=1")
            response.setCookie("session", "abc123")
            return response
        }
        return router
    }

    @Test func bodiesOverTheCapAre413AndServerKeepsServing() async throws {
        let configuration = HTTPServerConfiguration(maxBodySize: 1000)
        try await TestServer.with(Self.router(), configuration: configuration) { _, client async throws in
            let ok = try await client.send("POST", "/echo", body: Data(repeating: 65, count: 1000))
            #expect(ok.text == "1000")
            let big = try await client.send("POST", "/echo", body: Data(repeating: 65, count: 5000))
            #expect(big.status == 413)
            #expect(big.json["error"] as? String == "payload_too_large")
            #expect(try await client.send("POST", "/echo", body: Data("hi".utf8)).text == "2")
        }
    }

    @Test func headersUpToTheConnectionMemoryAreServedAndBiggerOnesAre431() async throws {
        // The default 16 KiB per connection: a GET with a 7 KB cookie (libmicrohttpd keeps a parsed copy of it) and a
        // POST with a 4 KB one (its body needs room too) still fit, near nginx's 8 KB per header line; 40 KB of
        // headers is refused, not a crash.
        try await TestServer.with(Self.router()) { server, client async throws in
            let cookie = String(repeating: "c", count: 7_000)
            #expect(try await client.send("GET", "/redirect", headers: ["Cookie": "big=\(cookie)"]).status == 302)
            let smaller = String(repeating: "c", count: 4_000)
            #expect(try await client.send("POST", "/echo", headers: ["Cookie": "big=\(smaller)"], body: Data("ok".utf8)).text == "2")
            let connection = try RawConnection(port: server.port)
            connection.send("GET /slow HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 40_000))\r\n\r\n")
            #expect(await connection.read(until: "\r\n").hasPrefix("HTTP/1.1 431"))
            #expect(try await client.send("POST", "/echo", body: Data("hi".utf8)).text == "2")
        }
    }

    @Test func chunkedBodiesOverTheCapAre413() async throws {
        let configuration = HTTPServerConfiguration(maxBodySize: 100)
        try await TestServer.with(Self.router(), configuration: configuration) { server, _ async throws in
            let connection = try RawConnection(port: server.port)
            let chunk = String(repeating: "x", count: 80)
            connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            connection.send("50\r\n\(chunk)\r\n50\r\n\(chunk)\r\n0\r\n\r\n")
            #expect(await connection.read(until: "payload_too_large").contains("413"))
        }
    }

    @Test func redirectsCarryLocationAndCookies() async throws {
        try await TestServer.with(Self.router()) { _, client async throws in
            let result = try await client.get("/redirect")
            #expect(result.status == 302)
            #expect(result.header("location") == "adobepass://ios.app?ok=1")
            #expect(result.setCookies.first?.hasPrefix("session=abc123; Path=/") == true)
        }
    }

    @Test func silentClientsAreCutOffAfterTheTimeout() async throws {
        let configuration = HTTPServerConfiguration(connectionTimeout: 1)
        try await TestServer.with(Self.router(), configuration: configuration) { server, client async throws in
            // Given a slowloris client that sends half a request line and then nothing
            let connection = try RawConnection(port: server.port)
            connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n")
            // Then the server closes it, and other clients are still served
            #expect(await connection.waitForClose(timeout: .seconds(5)))
            #expect(try await client.get("/redirect").status == 302)
        }
    }

    @Test func shutdownLetsInFlightRequestsFinish() async throws {
        let server = HTTPServer(responder: Self.router(), logger: TestServer.logger)
        try server.start()
        let client = TestHTTPClient(baseURL: server.baseURL)
        async let slow = client.get("/slow")
        // Wait (on a busy machine, a while) until the request is in flight.
        for _ in 0..<500 where server.openRequestCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(server.openRequestCount == 1)
        await server.shutdown(gracePeriod: .seconds(5))
        let result = try await slow
        #expect(result.status == 200)
        #expect(result.text == "done")
        #expect(throws: (any Error).self) { _ = try RawConnection(port: server.port) }
    }

    @Test func bindingABusyPortThrowsAClearError() throws {
        let first = HTTPServer(responder: Self.router(), logger: TestServer.logger)
        try first.start()
        defer { Task { await first.shutdown() } }
        let second = HTTPServer(configuration: .init(port: first.port), responder: Self.router(), logger: TestServer.logger)
        #expect(throws: HTTPServerError.self) { try second.start() }
    }
}
