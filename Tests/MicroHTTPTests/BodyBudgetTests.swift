import Foundation
import MicroHTTP
import PassTestSupport
import Testing

/// Issue #14 item 5, the rest of it: 30 concurrent 15 MB ingests peaked near 600 MB because every body was held
/// whole at once. Bodies held together are now capped by a budget; a request past it is told to retry (`503`,
/// `Retry-After`) before its body is read, and one body alone always fits.
struct BodyBudgetTests {
    static func echo() -> Router {
        var router = Router()
        router.post("/upload") { request in .text("\(request.body.count)") }
        return router
    }

    static let budget = HTTPServerConfiguration(maxBodySize: 4 << 20, bodyMemoryBudget: 1 << 20)

    @Test func aSecondBodyPastTheBudgetIsToldToRetryBeforeItIsRead() async throws {
        try await TestServer.with(Self.echo(), configuration: Self.budget) { server, client async throws in
            // The first upload announces 800 KB and holds its reservation while its body is still coming.
            let first = try RawConnection(port: server.port)
            first.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 800000\r\nConnection: close\r\n\r\n")
            first.send(String(repeating: "a", count: 1000))
            try await waitUntil { server.bodyBytesReserved == 800_000 }
            // A second one that would go past 1 MiB is answered at its head.
            let second = try RawConnection(port: server.port)
            second.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 800000\r\n\r\n")
            let refused = await second.read(until: "busy_with_uploads", timeout: .seconds(5))
            #expect(refused.hasPrefix("HTTP/1.1 503"))
            #expect(refused.contains("Retry-After: 1"))
            #expect(refused.contains("application/json"))
            // Small bodies that fit still go through meanwhile.
            #expect(try await client.send("POST", "/upload", body: Data(count: 100_000)).text == "100000")
            // The first upload completes; its share is handed back and the retry succeeds.
            first.send(String(repeating: "a", count: 799_000))
            #expect(await first.read(until: "800000", timeout: .seconds(5)).hasPrefix("HTTP/1.1 200"))
            try await waitUntil { server.bodyBytesReserved == 0 }
            #expect(try await client.send("POST", "/upload", body: Data(count: 800_000)).text == "800000")
        }
    }

    @Test func oneBodyAloneMayExceedTheBudgetUpToTheBodyCap() async throws {
        try await TestServer.with(Self.echo(), configuration: Self.budget) { server, client async throws in
            #expect(try await client.send("POST", "/upload", body: Data(count: 3 << 20)).text == "\(3 << 20)")
            try await waitUntil { server.bodyBytesReserved == 0 }
        }
    }

    @Test func aChunkedBodyThatOutgrowsTheBudgetIsDroppedAnd503() async throws {
        try await TestServer.with(Self.echo(), configuration: Self.budget) { server, client async throws in
            let holder = try RawConnection(port: server.port)
            holder.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 900000\r\nConnection: close\r\n\r\n")
            try await waitUntil { server.bodyBytesReserved == 900_000 }
            let chunked = try RawConnection(port: server.port)
            let chunk = String(repeating: "x", count: 0x10000)
            chunked.send("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            for _ in 0..<4 { chunked.send("10000\r\n\(chunk)\r\n") }
            chunked.send("0\r\n\r\n")
            #expect(await chunked.read(until: "busy_with_uploads", timeout: .seconds(5)).hasPrefix("HTTP/1.1 503"))
            holder.send(String(repeating: "h", count: 900_000))
            #expect(await holder.read(until: "900000", timeout: .seconds(5)).hasPrefix("HTTP/1.1 200"))
            try await waitUntil { server.bodyBytesReserved == 0 }
            _ = client
        }
    }

    /// Polls `condition` for up to 5 s (scaled for sanitizer runs).
    func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(TestTime.seconds(5))
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("condition not met within the deadline")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
