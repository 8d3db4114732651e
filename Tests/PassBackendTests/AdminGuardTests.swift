import Foundation
import MicroHTTP
import PassBackend
import PassTestSupport
import Testing

/// Issue #14 item 3: the backend's /admin controls are out of reach of web pages (foreign Origin or Host, bodies a
/// page can send cross-origin without a preflight) and take their own token when set.
struct AdminGuardTests {
    static func offset(_ client: TestHTTPClient) async throws -> String? {
        try await client.get("/admin/clock").json["offsetSeconds"] as? String
    }

    @Test func aPageOnAnotherPortCannotMoveTheClock() async throws {
        try await BackendFixture.with { _, client async throws in
            let before = try await Self.offset(client)
            let year = Data(#"{"advanceSeconds":31536000}"#.utf8)
            // fetch(..., {mode: "no-cors", method: "POST", body}) sends text/plain and its page's Origin.
            let noCors = try await client.send("POST", "/admin/clock",
                headers: ["Content-Type": "text/plain;charset=UTF-8", "Origin": "http://localhost:3000"], body: year)
            #expect(noCors.status == 403)
            let plain = try await client.send("POST", "/admin/clock", headers: ["Content-Type": "text/plain"], body: year)
            #expect(plain.status == 415)
            let form = try await client.send("POST", "/admin/sessions/revoke",
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data())
            #expect(form.status == 415)
            let empty = try await client.send("POST", "/admin/faults/reset", body: nil)
            #expect(empty.status == 415)
            let jsonFromPage = try await client.send("POST", "/admin/clock",
                headers: ["Content-Type": "application/json", "Origin": "http://127.0.0.1:1"], body: year)
            #expect(jsonFromPage.status == 403)
            let rebound = try await client.send("POST", "/admin/clock",
                headers: ["Content-Type": "application/json", "Host": "attacker.example:8081"], body: year)
            #expect(rebound.status == 403)
            for path in ["//admin/clock", "/ADMIN/clock", "/%61dmin/clock", "/admin./clock"] {
                let odd = try await client.send("POST", path, headers: ["Content-Type": "text/plain"], body: year)
                #expect(odd.status == 415, "\(path)")
            }
            #expect(try await Self.offset(client) == before)
            // GET never changes state; DELETE is no longer a way to change it.
            #expect(try await client.send("DELETE", "/admin/faults", headers: ["Content-Type": "application/json"]).status == 405)
            // The backend's own origin and scripts (no Origin) with JSON still work.
            let port = URL(string: client.baseURL)!.port!
            let own = try await client.send("POST", "/admin/clock",
                headers: ["Content-Type": "application/json", "Origin": "http://127.0.0.1:\(port)"], body: Data(#"{"offsetSeconds":0}"#.utf8))
            #expect(own.status == 200)
        }
    }

    @Test func withATokenEveryAdminCallNeedsItAndABigBodyIsRefusedUnread() async throws {
        let service = BackendService(configuration: try BackendFixture.configuration(), logger: TestServer.logger)
        let backend = PassBackend(service: service, admin: AdminAccess(token: "admin-secret"))
        try await TestServer.with(backend) { server, client async throws in
            #expect(try await client.get("/admin/clock").status == 401)
            #expect(try await client.get("/admin/clock", headers: ["Authorization": "Bearer wrong"]).status == 401)
            #expect(try await client.get("/admin/clock", headers: ["Authorization": "Bearer admin-secret"]).status == 200)
            // The rest of the backend is not behind the token.
            #expect(try await client.get("/adobe-services/1.0/config/REF30").status == 200)
            let connection = try RawConnection(port: server.port)
            let body = Data(repeating: 0x20, count: 10 << 20)
            connection.send("POST /admin/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n")
            let sent = try await BlockingWork.run { connection.sendUntilAnswered(body) }
            #expect(await connection.read(until: "admin_token_required").hasPrefix("HTTP/1.1 401"))
            #expect(sent < body.count / 2)
        }
    }
}
