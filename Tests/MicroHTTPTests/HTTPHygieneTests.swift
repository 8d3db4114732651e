import Foundation
@testable import MicroHTTP
import PassTestSupport
import Testing

/// Issue #27 item 15: a head the server cannot read gets one JSON `400` and the connection ends; a `Host` is read
/// whole; an encoded NUL in the query is refused rather than cutting the value short.
struct HTTPHygieneTests {
    static func router() -> Router {
        var router = Router()
        router.post("/echo") { request in .text("\(request.body.count)") }
        router.get("/query") { request in .text("[\(request.query("v") ?? "none")]") }
        router.get("/smuggled") { _ in .text("SMUGGLED") }
        return router
    }

    /// Sends `raw` and returns everything received until the server closes (or 15 s pass) and whether it closed.
    static func exchange(_ raw: String, port: UInt16) async throws -> (text: String, closed: Bool) {
        let connection = try RawConnection(port: port)
        connection.send(raw)
        let closed = await connection.waitForClose(timeout: .seconds(15))
        return (connection.text, closed)
    }

    static func statusLines(_ text: String) -> Int { text.components(separatedBy: "HTTP/1.1 ").count - 1 }

    /// Each value libmicrohttpd also reads as no length: it used to answer its own HTML error beside (or instead of)
    /// ours. Now exactly one status line, our JSON, and the connection closed (nothing after it is a request).
    @Test(arguments: [
        ("1, 5", "conflicting_content_length"), ("-1", "bad_content_length"), ("+5", "bad_content_length"),
        ("12345678901234567890123", "bad_content_length"), ("5x", "bad_content_length"), ("", "bad_content_length"),
    ])
    func anInvalidContentLengthIsOneJSON400(value: String, code: String) async throws {
        try await TestServer.with(Self.router()) { server, _ async throws in
            let raw = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(value)\r\n\r\nabcde"
                + "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
            let (text, closed) = try await Self.exchange(raw, port: server.port)
            #expect(text.hasPrefix("HTTP/1.1 400"), "\(value): \(text.prefix(80))")
            #expect(Self.statusLines(text) == 1, "\(value): \(text)")
            #expect(text.contains(#""error":"\#(code)""#), "\(value): \(text)")
            #expect(!text.contains("<html"))
            #expect(!text.contains("SMUGGLED"))
            #expect(closed)
        }
    }

    /// The head in two packets: the request line first (the server holds it, waiting), then the bad length. The
    /// refusal is still ours alone, on the connection it belongs to.
    @Test func aBadLengthArrivingAfterTheRequestLineIsStillOneJSON400() async throws {
        try await TestServer.with(Self.router()) { server, _ async throws in
            let connection = try RawConnection(port: server.port)
            connection.send("POST /echo HTTP/1.1\r\n")
            let deadline = ContinuousClock.now + .seconds(15)
            while server.state.withLock({ $0.heads.isEmpty }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(!server.state.withLock { $0.heads.isEmpty }, "the request line never reached the server")
            connection.send("Host: x\r\nContent-Length: -1\r\n\r\n")
            let closed = await connection.waitForClose(timeout: .seconds(15))
            #expect(connection.text.hasPrefix("HTTP/1.1 400"), "\(connection.text)")
            #expect(Self.statusLines(connection.text) == 1, "\(connection.text)")
            #expect(connection.text.contains(#""error":"bad_content_length""#))
            #expect(closed)
        }
    }

    @Test(arguments: [
        "x:0", "x:65536", "x:99999", "x:80a", "x:+80", "x:-1", "x:", "user@x", "user:pass@x:80", "x y", "x/y", "[::1", "[::1]x",
        "x:80:80", ":80",
    ])
    func aMalformedHostIsOneJSON400(host: String) async throws {
        try await TestServer.with(Self.router()) { server, _ async throws in
            let (text, closed) = try await Self.exchange("GET /query HTTP/1.1\r\nHost: \(host)\r\n\r\n", port: server.port)
            #expect(text.hasPrefix("HTTP/1.1 400"), "\(host): \(text.prefix(80))")
            #expect(Self.statusLines(text) == 1, "\(host): \(text)")
            #expect(text.contains(#""error":"malformed_host""#), "\(host): \(text)")
            #expect(closed)
        }
    }

    @Test func twoHostHeadersAreOneJSON400() async throws {
        try await TestServer.with(Self.router()) { server, _ async throws in
            let raw = "GET /query HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n"
            let (text, _) = try await Self.exchange(raw, port: server.port)
            #expect(text.hasPrefix("HTTP/1.1 400"))
            #expect(Self.statusLines(text) == 1)
            #expect(text.contains(#""error":"duplicate_host""#))
        }
    }

    @Test(arguments: ["x", "127.0.0.1:8080", "[::1]:1", "LOCALHOST:65535", "devbox.lan", "my_host~1:080"])
    func wellFormedHostsAreServed(host: String) async throws {
        try await TestServer.with(Self.router()) { server, _ async throws in
            let connection = try RawConnection(port: server.port)
            connection.send("GET /query?v=1 HTTP/1.1\r\nHost: \(host)\r\n\r\n")
            let text = await connection.read(until: "[1]", timeout: .seconds(15))
            #expect(text.hasPrefix("HTTP/1.1 200"), "\(host): \(text.prefix(80))")
        }
    }

    @Test func hostHeadersReadWhole() {
        #expect(HostHeader("Example.COM:8080") == HostHeader(name: "example.com", port: 8080))
        #expect(HostHeader("[::1]") == HostHeader(name: "[::1]", port: nil))
        #expect(HostHeader(" 127.0.0.1:80 ") == HostHeader(name: "127.0.0.1", port: 80))
        #expect(HostHeader("127.0.0.1@evil.example") == nil)
        #expect(HostHeader("x:65536") == nil)
        #expect(LocalAddresses.hostName(fromHostHeader: "[::1]:8080") == "[::1]")
    }

    /// libmicrohttpd hands decoded arguments over as C strings: `v=a%00b` reached the handler as `v=a`.
    @Test(arguments: ["/query?v=a%00b", "/query?v=%00", "/query?v%00=1", "/query?v=a%%00", "/query?x=1&v=ab%00"])
    func anEncodedNULInTheQueryIsOneJSON400(target: String) async throws {
        try await TestServer.with(Self.router()) { server, _ async throws in
            let (text, _) = try await Self.exchange("GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", port: server.port)
            #expect(text.hasPrefix("HTTP/1.1 400"), "\(target): \(text.prefix(80))")
            #expect(Self.statusLines(text) == 1, "\(target): \(text)")
            #expect(text.contains(#""error":"nul_in_query""#), "\(target): \(text)")
        }
    }

    @Test func anEscapedPercentBeforeZerosIsNoNUL() async throws {
        try await TestServer.with(Self.router()) { _, client async throws in
            let answer = try await client.get("/query?v=a%2500b")
            #expect(answer.status == 200)
            #expect(answer.text == "[a%00b]")
        }
    }
}
