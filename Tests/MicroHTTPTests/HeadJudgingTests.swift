import Foundation
import MicroHTTP
import PassTestSupport
import Locking
import Testing

/// Issue #14 items 2 and 5: a request is judged on its head before any body is read; a refused or oversized
/// request never has its body buffered.
struct HeadJudgingTests {
    /// Refuses `POST /guarded` without `Authorization: Bearer ok`; records every body byte a handler got.
    final class Guarded: HTTPResponder {
        let router: Router
        let bodyBytes = Mutex(0)

        init() {
            var router = Router()
            let bytes = Mutex(0)
            router.post("/guarded") { request in .text("\(request.body.count)") }
            router.post("/small") { request in .text("\(request.body.count)") }
            self.router = router
            _ = bytes
        }

        func judgeHead(_ head: Request) -> Response? {
            guard head.path == "/guarded", head.header("Authorization") != "Bearer ok" else { return nil }
            return HTTPError(.unauthorized, code: "token_required", message: "No.").response
        }

        func bodyLimit(for head: Request) -> Int? { head.path == "/small" ? 1000 : nil }

        func respond(to request: Request) async -> Response {
            bodyBytes.withLock { $0 += request.body.count }
            return await router.respond(to: request)
        }
    }

    @Test func anUnauthenticated10MBPostIsRefusedBeforeItsBodyIsRead() async throws {
        let responder = Guarded()
        try await TestServer.with(responder, configuration: .init(maxBodySize: 16 << 20)) { server, client async throws in
            let connection = try RawConnection(port: server.port)
            let body = Data(repeating: 65, count: 10 << 20)
            connection.send("POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n")
            let sent = try await BlockingWork.run { connection.sendUntilAnswered(body) }
            let text = await connection.read(until: "token_required", timeout: .seconds(5))
            #expect(text.hasPrefix("HTTP/1.1 401"))
            // The answer came while most of the body was still unsent, and no handler saw a byte of it.
            #expect(sent < body.count / 2, "sent \(sent) of \(body.count) bytes before the answer")
            #expect(responder.bodyBytes.withLock { $0 } == 0)
            #expect(await connection.waitForClose(timeout: .seconds(5)))
            // With the token the same body is read.
            let allowed = try await client.send("POST", "/guarded", headers: ["Authorization": "Bearer ok"], body: Data(count: 5000))
            #expect(allowed.text == "5000")
        }
    }

    @Test func aContentLengthOverTheRoutesCapIs413BeforeReading() async throws {
        try await TestServer.with(Guarded()) { server, client async throws in
            let connection = try RawConnection(port: server.port)
            // Only the head is sent: the answer cannot wait for a body.
            connection.send("POST /small HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n")
            let text = await connection.read(until: "payload_too_large", timeout: .seconds(5))
            #expect(text.hasPrefix("HTTP/1.1 413"))
            // Sizes in words, not raw byte counts (5000000 is 4.8 MB).
            #expect(text.contains("Limit: 1000 bytes, sent: 4.8 MB"))
            #expect(try await client.send("POST", "/small", body: Data(count: 1000)).text == "1000")
        }
    }

    @Test func aChunkedBodyOverTheRoutesCapIsDroppedAnd413() async throws {
        try await TestServer.with(Guarded()) { server, _ async throws in
            let connection = try RawConnection(port: server.port)
            let chunk = String(repeating: "x", count: 800)
            connection.send("POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            connection.send("320\r\n\(chunk)\r\n320\r\n\(chunk)\r\n0\r\n\r\n")
            #expect(await connection.read(until: "payload_too_large").hasPrefix("HTTP/1.1 413"))
        }
    }
}
