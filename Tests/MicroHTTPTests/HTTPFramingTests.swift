import Foundation
import MicroHTTP
import PassTestSupport
import Testing

/// Issue #14 item 5: requests two parsers could frame differently are refused at once, with a JSON answer, and the
/// bytes after them are never parsed as another request.
struct HTTPFramingTests {
    static func router() -> Router {
        var router = Router()
        router.post("/echo") { request in .text("\(request.body.count)") }
        router.get("/path/{rest...}") { request in .text(request.path) }
        router.get("/smuggled") { _ in .text("SMUGGLED") }
        return router
    }

    /// Sends `raw` and returns everything received until the server closes or 3 s pass.
    static func exchange(_ raw: String, port: UInt16) async throws -> (text: String, closed: Bool) {
        let connection = try RawConnection(port: port)
        connection.send(raw)
        let closed = await connection.waitForClose(timeout: .seconds(15))
        return (connection.text, closed)
    }

    @Test func conflictingContentLengthsAre400AndTheRestIsNeverASecondRequest() async throws {
        try await TestServer.with(Self.router()) { server, _ async throws in
            let raw = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 40\r\n\r\n"
                + "abcGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
            let (text, closed) = try await Self.exchange(raw, port: server.port)
            #expect(text.hasPrefix("HTTP/1.1 400"))
            #expect(text.contains("conflicting_content_length"))
            #expect(!text.contains("SMUGGLED"))
            #expect(closed)
        }
    }

    @Test func contentLengthWithTransferEncodingIs400() async throws {
        try await TestServer.with(Self.router()) { server, _ async throws in
            let raw = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
            #expect(try await Self.exchange(raw, port: server.port).text.hasPrefix("HTTP/1.1 400"))
        }
    }

    @Test(arguments: ["xchunked", "gzip, chunked", "chunked, chunked", "identity"])
    func unknownTransferEncodingsAre501AtOnce(coding: String) async throws {
        // Without the check the server read the body until the client closed: the answer never came before the
        // connection's 60 s timeout. Timed on a thread of its own, so a busy test process does not skew it.
        try await TestServer.with(Self.router(), configuration: .init(connectionTimeout: 60)) { server, _ async throws in
            let port = server.port
            let (text, elapsed) = try await BlockingWork.run {
                let connection = try RawConnection(port: port)
                let started = ContinuousClock.now
                connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \(coding)\r\n\r\n3\r\nabc\r\n")
                let data = connection.readBlocking(timeout: .seconds(30)) { String(decoding: $0, as: UTF8.self).contains("}") }
                return (String(decoding: data, as: UTF8.self), ContinuousClock.now - started)
            }
            #expect(text.hasPrefix("HTTP/1.1 501"))
            #expect(text.contains("unsupported_transfer_encoding"))
            #expect(elapsed < .seconds(15))
        }
    }

    @Test(arguments: ["Transfer-Encoding : chunked", "Content-Length : 3", "X Bad: 1", "X-Tab\t: 1"])
    func headerNamesWithSpacesAre400(line: String) async throws {
        try await TestServer.with(Self.router()) { server, _ async throws in
            let raw = "POST /echo HTTP/1.1\r\nHost: x\r\n\(line)\r\n\r\n3\r\nabc\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
            let (text, _) = try await Self.exchange(raw, port: server.port)
            #expect(text.hasPrefix("HTTP/1.1 400"))
            #expect(text.contains("malformed_header"))
            #expect(!text.contains("SMUGGLED"))
        }
    }

    @Test func aChunkedBodyStillWorks() async throws {
        try await TestServer.with(Self.router()) { server, _ async throws in
            let connection = try RawConnection(port: server.port)
            connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
            let text = await connection.read(until: "\r\n\r\n3", timeout: .seconds(30))
            #expect(text.hasPrefix("HTTP/1.1 200"))
        }
    }

    /// Every target over the limit gets a JSON 414, including the lengths just under libmicrohttpd's own buffer
    /// (16 KiB), where the connection used to close with no answer at all.
    @Test(arguments: [8_200, 12_000, 15_900, 16_000, 16_100, 16_200, 16_300, 16_340])
    func overLongURLsAre414WithAJSONBody(length: Int) async throws {
        try await TestServer.with(Self.router()) { server, _ async throws in
            let path = "/path/" + String(repeating: "a", count: length - 6)
            let (text, _) = try await Self.exchange("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
            #expect(text.hasPrefix("HTTP/1.1 414"), "\(length) bytes: \(text.prefix(60))")
            #expect(text.contains("Content-Type: application/json"))
            #expect(text.contains(#""error":"uri_too_long""#))
        }
    }

    /// Past the connection's memory (16 KiB) libmicrohttpd never hands the target over and answers its own 414,
    /// with an HTML body: still an answer, never a silent close.
    @Test(arguments: [16_500, 17_000, 64_000])
    func urlsPastTheConnectionMemoryStillGet414(length: Int) async throws {
        try await TestServer.with(Self.router()) { server, _ async throws in
            let path = "/path/" + String(repeating: "a", count: length - 6)
            let (text, _) = try await Self.exchange("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
            #expect(text.hasPrefix("HTTP/1.1 414"), "\(length) bytes: \(text.prefix(60))")
        }
    }

    @Test func urlsUnderTheLimitAreServed() async throws {
        try await TestServer.with(Self.router()) { server, client async throws in
            let path = "/path/" + String(repeating: "a", count: 8_000)
            #expect(try await client.get(path).status == 200)
        }
    }
}
