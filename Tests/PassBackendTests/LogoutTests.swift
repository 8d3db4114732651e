import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// `GET {sp}/logout` in the web view (spec §5.2.7): through the MVPD's logout page back to `redirect_url`,
/// with the device's sessions ended on the server.
struct LogoutTests {
    static func logoutPath(mvpd: String = "Cablevision", device: String = Demo.device, redirect: String? = nil) -> String {
        var path = "/adobe-services/1.0/logout?noflash=true&mso_id=\(mvpd)&requestor_id=REF30&device_id=\(device)"
        if let redirect { path += "&redirect_url=\(TestHTTPClient.escape(redirect))" }
        return path
    }

    @Test func logoutGoesThroughTheMVPDAndBackToTheApp() async throws {
        try await BackendFixture.with { service, client async throws in
            let sdk = SDKClient(client: client)
            _ = try await sdk.signIn(Demo.alice)
            let first = try await client.get(Self.logoutPath())
            #expect(first.status == 302)
            #expect(first.header("Location")?.hasPrefix("/mvpd/Cablevision/logout") == true)

            let (_, end) = try await WebLogin(client: client).follow(Self.logoutPath())
            #expect(end == "adobepass://ios.app")
            #expect(service.sessions.isEmpty)
            let after = try await sdk.sessionDevice(requestor: "REF30", device: Demo.device)
            #expect(after.status == 404)
            #expect(throws: SDKResponseError.self) { try SDKResponses.parseAuthnToken(after.text) }
        }
    }

    @Test func logoutReturnsToACustomRedirectURL() async throws {
        try await BackendFixture.with { _, client async throws in
            _ = try await SDKClient(client: client).signIn(Demo.carol)
            let redirect = "myapp://signed-out?from=logout"
            let (_, end) = try await WebLogin(client: client).follow(Self.logoutPath(mvpd: "Dish", redirect: redirect))
            #expect(end == redirect)
        }
    }

    @Test func logoutEndsEveryProgrammersSessionOnThatDeviceOnly() async throws {
        try await BackendFixture.with { service, client async throws in
            let sdk = SDKClient(client: client)
            _ = try await sdk.signIn(Demo.carol, requestor: "REF30")
            _ = try await sdk.signIn(Demo.carol, requestor: "SPORTS1")
            _ = try await sdk.signIn(Demo.carol, requestor: "REF30", device: Demo.otherDevice)
            #expect(service.sessions.count == 3)

            _ = try await WebLogin(client: client).follow(Self.logoutPath(mvpd: "Dish"))
            #expect(try await sdk.sessionDevice(requestor: "REF30", device: Demo.device).status == 404)
            #expect(try await sdk.sessionDevice(requestor: "SPORTS1", device: Demo.device).status == 404)
            #expect(try await sdk.sessionDevice(requestor: "REF30", device: Demo.otherDevice).status == 200)
        }
    }

    @Test func whenTheMVPDDropsTheRedirectTheChainStopsOnItsPage() async throws {
        try await BackendFixture.with { service, client async throws in
            _ = try await SDKClient(client: client).signIn(Demo.alice)
            try await AdminClient(client: client).setFaults(FaultSettings(logoutDropsRedirect: true))
            let (page, end) = try await WebLogin(client: client).follow(Self.logoutPath())
            #expect(end == nil)
            #expect(page.status == 200)
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(page.text.contains("You are signed out of Optimum"))
            // The server side of the logout happened anyway.
            #expect(service.sessions.isEmpty)
        }
    }

    @Test func logoutAtAnUnknownMVPDIs400() async throws {
        try await BackendFixture.with { service, client async throws in
            _ = try await SDKClient(client: client).signIn(Demo.alice)
            let answer = try await client.get(Self.logoutPath(mvpd: "Nope"))
            #expect(answer.status == 400)
            #expect(answer.json["error"] as? String == "unknown_mvpd")
            #expect(service.sessions.count == 1)
        }
    }

    @Test func signingInAgainAfterLogoutWorks() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let before = try await sdk.signIn(Demo.alice)
            _ = try await WebLogin(client: client).follow(Self.logoutPath())
            let after = try await sdk.signIn(Demo.alice)
            #expect(after != before)
            #expect(try await sdk.authorize(resource: "news", authn: after).status == 200)
            #expect(try await sdk.authorize(resource: "news", authn: before).status == 401)
        }
    }
}
