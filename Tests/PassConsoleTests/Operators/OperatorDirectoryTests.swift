import Foundation
import PassConsole
import PassHistory
import PassTestSupport
import Testing

/// The door judges a request's head on the console's copy of its operators, never by reading the database on the
/// network thread: a busy history does not hold up refusals or `/api/me`, and an operator added or revoked in the
/// history counts within the refresh interval.
@Suite(.serialized)
struct OperatorDirectoryTests {
    /// Holds the history's writer inside a transaction until `release` is signalled; returns once it is held.
    static func holdWriter(_ history: HistoryDatabase, release: DispatchSemaphore) async throws -> Task<Void, Error> {
        let held = DispatchSemaphore(value: 0)
        let task = Task.detached {
            try await history.writer.write { _ in
                held.signal()
                release.wait()
            }
        }
        _ = try await BlockingWork.run { held.wait(timeout: .now() + 30) }
        return task
    }

    @Test func aBusyHistoryDoesNotHoldUpTheDoor() async throws {
        // In memory the history is one serial connection: a read there waits for any write, as the old head read did
        try await ConsoleFixture.with(accessToken: "secret-token", historyInMemory: true) { fixture in
            let token = OperatorToken.generate()
            try await fixture.console.history.addOperator(
                OperatorRecord(name: "vera", role: .viewer, tokenHash: OperatorToken.hash(token), createdAt: Date()))
            try fixture.console.start()
            let port = try #require(URL(string: fixture.console.baseURL)?.port.map(UInt16.init))
            let release = DispatchSemaphore(value: 0)
            let writing = try await Self.holdWriter(fixture.sqlite, release: release)
            defer { release.signal() }

            func ask(_ head: String) async throws -> String {
                let connection = try await BlockingWork.run { try RawConnection(port: port) }
                connection.send("GET \(head)\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
                return await connection.read(until: "}", timeout: .seconds(TestTime.seconds(30)))
            }
            // While the write is held: a request without a token is refused, and a signed-in one learns who it is
            let refused = try await ask("/api/overview HTTP/1.1")
            #expect(refused.hasPrefix("HTTP/1.1 401") && refused.contains("sign_in_required"), "\(refused)")
            let me = try await ask("/api/me HTTP/1.1\r\nAuthorization: Bearer \(token)")
            #expect(me.hasPrefix("HTTP/1.1 200") && me.contains("\"vera\""), "\(me)")
            release.signal()
            try await writing.value
        }
    }

    @Test func anOperatorAddedOrRevokedInTheHistoryCountsWithinTheRefreshInterval() async throws {
        try await ConsoleFixture.with(configure: { $0.operatorRefreshInterval = .milliseconds(100) }) { fixture in
            try fixture.console.start()
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            // No operators yet: loopback single-user
            #expect(try await client.get("/api/me").json["signInRequired"] as? Bool == false)

            func waitFor(_ what: String, _ done: @escaping () async throws -> Bool) async throws {
                let deadline = ContinuousClock.now + .seconds(TestTime.seconds(20))
                while try await !done() {
                    try #require(ContinuousClock.now < deadline, "\(what) never counted")
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            let token = OperatorToken.generate()
            try await fixture.console.history.addOperator(
                OperatorRecord(name: "otto", role: .operator, tokenHash: OperatorToken.hash(token), createdAt: Date()))
            let asOtto = ["Authorization": "Bearer \(token)"]
            try await waitFor("the addition") { try await client.get("/api/me", headers: asOtto).json["name"] as? String == "otto" }
            // …and from then on the console needs a sign-in
            #expect(try await client.get("/api/overview").status == 401)

            _ = try await fixture.console.history.revokeOperator("otto")
            try await waitFor("the revocation") { try await client.get("/api/me", headers: asOtto).status == 401 }
            let revoked = try await client.get("/api/overview", headers: asOtto)
            #expect(revoked.json["error"] as? String == "token_revoked")
        }
    }
}
