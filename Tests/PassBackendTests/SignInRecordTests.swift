import Foundation
import PassBackend
import PassTestSupport
import Testing

/// `GET /admin/signins`: every sign-in the backend issued an authN token for, kept after logout and after another
/// user signs in on the device (the console's replay asks it who a recorded session signed in as).
struct SignInRecordTests {
    @Test func everySignInIsKeptAfterLogoutAndAfterAnotherUserSignsInOnTheDevice() async throws {
        try await BackendFixture.with { service, client async throws in
            // Given carol signed in with DISH, logged out, then alice signed in with Optimum on the same device
            let sdk = SDKClient(client: client)
            _ = try await sdk.signIn(Demo.carol)
            _ = try await WebLogin(client: client).follow(LogoutTests.logoutPath(mvpd: "Dish"))
            _ = try await sdk.signIn(Demo.alice)
            #expect(service.sessions.map(\.username) == ["alice"])
            // Then the record still names both, oldest first, with the GUID their tokens carry
            let answer = try await client.get("/admin/signins")
            #expect(answer.status == 200)
            let list = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [[String: Any]])
            #expect(list.map { $0["username"] as? String } == ["carol", "alice"])
            #expect(list.map { $0["mvpdID"] as? String } == ["Dish", "Cablevision"])
            #expect(list.allSatisfy { ($0["guid"] as? String)?.isEmpty == false && $0["deviceID"] as? String == Demo.device })
            #expect(list.last?["guid"] as? String == service.sessions.first?.guid)
        }
    }

    /// Issue #27 item 5: a revoked sign-in was revoked in `/admin/sessions` and not in `/admin/signins`.
    @Test func aRevokedSignInIsRevokedInBothLists() async throws {
        try await BackendFixture.with { service, client async throws in
            _ = try await SDKClient(client: client).signIn(Demo.carol)
            let revoked = try await client.post("/admin/sessions/revoke", json: Data(#"{"deviceId":"\#(Demo.device)"}"#.utf8))
            #expect(revoked.status == 200, "\(String(decoding: revoked.body, as: UTF8.self))")
            func revokedFlags(_ path: String) async throws -> [Bool?] {
                let list = try #require(try JSONSerialization.jsonObject(with: try await client.get(path).body) as? [[String: Any]])
                return list.map { $0["revoked"] as? Bool }
            }
            #expect(try await revokedFlags("/admin/sessions") == [true])
            #expect(try await revokedFlags("/admin/signins") == [true])
        }
    }
}
