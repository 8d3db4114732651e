import AccessEnabler
import Foundation
import PassConsole
import PassHistory
import PassTestSupport
import Testing

/// A revoked operator's open live feed kept streaming — unredacted, for an operator (issue #27 item 12). Every open
/// feed is judged again at each refresh of the operators: revoked, or given another role, it ends; the reconnect is
/// judged as any request.
@Suite(.serialized)
struct OpenFeedRevocationTests {
    /// Reads until the feed's chunked answer ends (its last chunk) or the connection closes.
    static func ended(_ connection: RawConnection) async -> Bool {
        let text = await connection.read(until: "\r\n0\r\n\r\n", timeout: .seconds(TestTime.seconds(20)))
        if text.hasSuffix("\r\n0\r\n\r\n") { return true }
        return await connection.waitForClose(timeout: .seconds(2))
    }

    @Test func aRevokedOperatorsOpenFeedEndsWithinTheRefreshIntervalAndTheReconnectIsRefused() async throws {
        try await ConsoleFixture.with(configure: { $0.operatorRefreshInterval = .milliseconds(100) }) { fixture in
            try fixture.console.start()
            let port = UInt16(URL(string: fixture.console.baseURL)!.port!)
            let otto = OperatorToken.generate(), vera = OperatorToken.generate()
            try await fixture.console.history.addOperator(
                OperatorRecord(name: "otto", role: .operator, tokenHash: OperatorToken.hash(otto), createdAt: Date()))
            try await fixture.console.history.addOperator(
                OperatorRecord(name: "vera", role: .operator, tokenHash: OperatorToken.hash(vera), createdAt: Date()))
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            let deadline = ContinuousClock.now + .seconds(TestTime.seconds(20))
            while try await client.get("/api/me", headers: ["Authorization": "Bearer \(otto)"]).json["name"] as? String != "otto" {
                try #require(ContinuousClock.now < deadline, "the operators never counted")
                try await Task.sleep(for: .milliseconds(50))
            }
            func feed(_ token: String) async throws -> RawConnection {
                let connection = try RawConnection(port: port)
                connection.send("GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nAccept: text/event-stream\r\n\r\n")
                let head = await connection.read(until: "retry: 2000")
                try #require(head.hasPrefix("HTTP/1.1 200"), "\(head.prefix(200))")
                return connection
            }
            let ottos = try await feed(otto), veras = try await feed(vera)
            // When otto is revoked
            _ = try await fixture.console.history.revokeOperator("otto")
            // Then his feed ends, and vera's goes on
            #expect(await Self.ended(ottos), "otto's feed still streams: \(ottos.text.suffix(200))")
            try await fixture.console.history.append([EntitlementEvent(sequence: 1, timestamp: Date(), sessionID: UUID(), deviceID: "d",
                app: AppIdentity(bundleID: "com.after.revocation", teamID: "T"), requestorID: "REF30", mvpdID: nil,
                kind: .apiCall(name: "afterRevocation", arguments: [:]))])
            #expect(await veras.read(until: "afterRevocation(").contains("afterRevocation("), "vera's feed goes on")
            #expect(!ottos.text.contains("afterRevocation("))
            // And his reconnect is refused
            let again = try RawConnection(port: port)
            again.send("GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(otto)\r\n\r\n")
            let refused = await again.read(until: "token_revoked")
            #expect(refused.hasPrefix("HTTP/1.1 401") && refused.contains("token_revoked"), "\(refused.prefix(300))")
            ottos.closeNow(); veras.closeNow(); again.closeNow()
        }
    }
}
