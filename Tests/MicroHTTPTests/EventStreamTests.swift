import Foundation
import MicroHTTP
import PassTestSupport
import Testing

struct EventStreamTests {
    static func router(_ stream: TestBroadcast) -> Router {
        var router = Router()
        router.on("GET", "/events", inline: { request in stream.response(for: request) })
        router.get("/ping") { _ in .text("pong") }
        return router
    }

    static func subscribe(_ port: UInt16) async throws -> RawConnection {
        let connection = try RawConnection(port: port)
        connection.send("GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        await connection.read(until: "retry: 2000")
        return connection
    }

    static func waitFor(_ condition: () -> Bool, timeout: Duration = .seconds(20)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        return condition()
    }

    @Test func everySubscriberReceivesEachEvent() async throws {
        let stream = TestBroadcast()
        try await TestServer.with(Self.router(stream)) { server, _ async throws in
            var clients: [RawConnection] = []
            for _ in 0..<5 { clients.append(try await Self.subscribe(server.port)) }
            #expect(await Self.waitFor { stream.subscriberCount == 5 })
            stream.publish(event: "flow", data: #"{"state":"picker"}"#)
            for client in clients {
                let text = await client.read(until: "picker")
                #expect(text.contains("text/event-stream"))
                #expect(text.contains("id: 1\nevent: flow\ndata: {\"state\":\"picker\"}\n\n"))
            }
        }
    }

    @Test func disconnectedClientsAreRemoved() async throws {
        let stream = TestBroadcast(heartbeat: .milliseconds(100))
        try await TestServer.with(Self.router(stream)) { server, client async throws in
            let stays = try await Self.subscribe(server.port)
            let leaves = try await Self.subscribe(server.port)
            #expect(await Self.waitFor { stream.subscriberCount == 2 })
            leaves.closeNow()
            #expect(await Self.waitFor { stream.subscriberCount == 1 })
            stream.publish(data: "still here")
            #expect(await stays.read(until: "still here").contains("data: still here"))
            #expect(stays.text.contains(": keep-alive"))
            #expect(try await client.get("/ping").text == "pong")
        }
    }

    @Test func aClientThatStopsReadingDoesNotBlockOthers() async throws {
        let stream = TestBroadcast(clientBufferLimit: 4 << 20)
        try await TestServer.with(Self.router(stream)) { server, _ async throws in
            let stalled = try await Self.subscribe(server.port)  // never reads again
            let reader = try await Self.subscribe(server.port)
            #expect(await Self.waitFor { stream.subscriberCount == 2 })
            // 16 MB in batches the reader keeps up with: more than loopback's kernel buffers and the 4 MB
            // per-client limit can hold for the client that never reads.
            let payload = String(repeating: "x", count: 8 * 1024)
            for batch in 0..<20 {
                for index in 0..<100 { stream.publish(data: "\(batch * 100 + index) \(payload)") }
                #expect(await reader.read(until: "data: \(batch * 100 + 99) ", timeout: .seconds(10)).contains("\(batch * 100 + 99) "))
                reader.discardReceived()
            }
            stream.publish(data: "final")
            #expect(await reader.read(until: "data: final").contains("data: final"))
            // The stalled client overflowed its buffer and was cut off instead of growing without bound.
            #expect(await Self.waitFor { stream.subscriberCount == 1 })
            _ = stalled
        }
    }

    @Test func shutdownEndsStreamsPromptly() async throws {
        let stream = TestBroadcast()
        let server = HTTPServer(responder: Self.router(stream), logger: TestServer.logger)
        try server.start()
        let connection = try await Self.subscribe(server.port)
        #expect(await Self.waitFor { stream.subscriberCount == 1 })
        let started = ContinuousClock.now
        // Open streams must not hold shutdown for the grace period (a generous margin: CI machines are busy).
        await server.shutdown(gracePeriod: .seconds(30))
        #expect(ContinuousClock.now - started < .seconds(15))
        #expect(await connection.waitForClose(timeout: .seconds(2)))
    }
}
