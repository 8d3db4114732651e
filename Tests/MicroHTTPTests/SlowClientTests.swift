import Foundation
import MicroHTTP
import PassTestSupport
import Testing

/// Issue #14 item 5: clients trickling headers cannot lock out normal requests (the full 1,100-connection probe is
/// Benchmarks/probes/slow_clients.py; these keep the suite fast).
@Suite(.serialized)
struct SlowClientTests {
    static func router() -> Router {
        var router = Router()
        // Inline: answered on the network thread, so the timing below is the server's, not the test pool's.
        router.on("GET", "/ok", inline: { _ in .text("ok") })
        return router
    }

    @Test func normalRequestsAreAnsweredWhile300ClientsTrickleHeaders() async throws {
        let configuration = HTTPServerConfiguration(headTimeout: 2)
        try await TestServer.with(Self.router(), configuration: configuration) { server, client async throws in
            let port = server.port
            let slow = try await BlockingWork.run {
                try (0..<300).map { index in
                    let connection = try RawConnection(port: port)
                    connection.send("GET /ok HTTP/1.1\r\nHost: x\r\nX-Slow-\(index): ")
                    return connection
                }
            }
            let (answer, elapsed) = try await BlockingWork.run {
                let connection = try RawConnection(port: port)
                let started = ContinuousClock.now
                connection.send("GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                let data = connection.readBlocking(timeout: .seconds(30)) { String(decoding: $0, as: UTF8.self).hasSuffix("ok") }
                return (String(decoding: data, as: UTF8.self), ContinuousClock.now - started)
            }
            #expect(answer.hasPrefix("HTTP/1.1 200"))
            #expect(elapsed < .seconds(3))
            // Trickling does not buy time: each slow connection is closed at the head deadline.
            for connection in slow.prefix(5) { connection.send("a") }
            try await Task.sleep(for: .seconds(1))
            for connection in slow.prefix(5) { connection.send("b") }
            #expect(await slow[0].waitForClose(timeout: .seconds(20)))
            #expect(await slow[299].waitForClose(timeout: .seconds(20)))
            #expect(try await client.get("/ok").status == 200)
        }
    }

    @Test func aClientBeyondLoopbackHoldsAtMostItsShareOfConnections() async throws {
        // Needs an address of this machine that is not loopback (the per-client limit exempts loopback).
        guard let address = LocalAddresses.interfaceAddresses().first(where: { !$0.hasPrefix("[") && !LocalAddresses.isLoopback($0) })
        else { return }
        var configuration = HTTPServerConfiguration(perClientConnectionLimit: 5)
        configuration.host = "0.0.0.0"
        let server = HTTPServer(configuration: configuration, responder: Self.router(), logger: TestServer.logger)
        try server.start()
        defer { Task { await server.shutdown() } }
        let port = server.port
        let held = try await BlockingWork.run { try (0..<8).map { _ in try RawConnection(host: address, port: port) } }
        var answered = 0
        for connection in held {
            connection.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
            if await connection.read(until: "\r\n\r\nok", timeout: .seconds(2)).hasPrefix("HTTP/1.1 200") { answered += 1 }
        }
        #expect(answered == 5)
        // Loopback is not limited.
        let local = TestHTTPClient(baseURL: "http://127.0.0.1:\(server.port)")
        #expect(try await local.get("/ok").status == 200)
    }
}
