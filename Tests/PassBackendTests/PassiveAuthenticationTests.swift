import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// Passive authentication (spec §8.5): with an MVPD that binds tokens to the Programmer (Optimum in the demo
/// data), a session of Programmer A on a device yields one for Programmer B on that device without a login page.
struct PassiveAuthenticationTests {
    static func passive(requestor: String, mvpd: String = "Cablevision", device: String = Demo.device,
                        redirect: String = "adobepass://ios.app") -> String
    {
        "/adobe-services/1.0/authenticate/saml?requestor_id=\(requestor)&mso_id=\(mvpd)&device_id=\(device)"
            + "&passive=true&redirect_url=\(TestHTTPClient.escape(redirect))"
    }

    @Test func sessionOfOneProgrammerYieldsOneForAnotherWithoutALoginPage() async throws {
        try await BackendFixture.with { service, client async throws in
            let sdk = SDKClient(client: client)
            let first = try SignedToken<AuthNToken>.parse(try await sdk.signIn(Demo.alice, requestor: "REF30"))

            let answer = try await client.get(Self.passive(requestor: "SPORTS1"))
            #expect(answer.status == 302)
            #expect(answer.header("Location") == "adobepass://ios.app")

            let session = try await sdk.sessionDevice(requestor: "SPORTS1", device: Demo.device)
            #expect(session.status == 200)
            let second = try SignedToken<AuthNToken>.parse(try SDKResponses.parseAuthnToken(session.text))
            #expect(second.verify(with: service.signingKey.publicKey))
            #expect(second.body.requestorID == "SPORTS1")
            #expect(second.body.mvpdID == "Cablevision")
            #expect(second.body.samlNameID == first.body.samlNameID)
            #expect(second.body.matches(deviceID: Demo.device))
            #expect(second.body.guid != first.body.guid)
            // Each token still only works for its own Programmer.
            #expect(try await sdk.authorize(requestor: "SPORTS1", resource: "sports", authn: second.serialized).status == 200)
            #expect(try await sdk.authorize(requestor: "SPORTS1", resource: "sports", authn: first.serialized).status == 401)
        }
    }

    @Test func passiveRedirectGoesToCompletePassiveAuthentication() async throws {
        try await BackendFixture.with { _, client async throws in
            _ = try await SDKClient(client: client).signIn(Demo.alice, requestor: "SPORTS1")
            let target = "\(client.baseURL)/adobe-services/1.0/completePassiveAuthentication"
            let answer = try await client.get(Self.passive(requestor: "REF30", redirect: target))
            #expect(answer.header("Location") == target)
            let page = try await client.get(target)
            #expect(page.status == 200)
        }
    }

    @Test func withoutAPriorSessionPassiveAuthenticationFails() async throws {
        try await BackendFixture.with { service, client async throws in
            let answer = try await client.get(Self.passive(requestor: "SPORTS1"))
            #expect(answer.status == 302)
            #expect(answer.header("Location") == "adobepass://ios.app?error=passive_authentication_failed")
            #expect(service.sessions.isEmpty)
        }
    }

    @Test func sessionOnAnotherDeviceDoesNotCount() async throws {
        try await BackendFixture.with { service, client async throws in
            _ = try await SDKClient(client: client).signIn(Demo.alice, requestor: "REF30", device: Demo.otherDevice)
            let answer = try await client.get(Self.passive(requestor: "SPORTS1"))
            #expect(answer.header("Location")?.contains("error=passive_authentication_failed") == true)
            #expect(service.sessions.count == 1)
        }
    }

    @Test func revokedOrExpiredSessionsDoNotCount() async throws {
        try await BackendFixture.with { service, client async throws in
            _ = try await SDKClient(client: client).signIn(Demo.alice, requestor: "REF30")
            service.revokeSessions(deviceID: Demo.device)
            let revoked = try await client.get(Self.passive(requestor: "SPORTS1"))
            #expect(revoked.header("Location")?.contains("error=passive_authentication_failed") == true)
        }
        try await BackendFixture.with { service, client async throws in
            _ = try await SDKClient(client: client).signIn(Demo.alice, requestor: "REF30")
            service.clock.advance(by: 86400 + 60)
            let expired = try await client.get(Self.passive(requestor: "SPORTS1"))
            #expect(expired.header("Location")?.contains("error=passive_authentication_failed") == true)
        }
    }

    @Test func mvpdWithoutAuthPerRequestorDoesNotRunPassiveAuthentication() async throws {
        try await BackendFixture.with { service, client async throws in
            // DISH shares tokens across Programmers instead (copy-SSO), so passive authentication is not offered.
            _ = try await SDKClient(client: client).signIn(Demo.carol, requestor: "REF30")
            let answer = try await client.get(Self.passive(requestor: "SPORTS1", mvpd: "Dish"))
            #expect(answer.header("Location")?.contains("error=passive_authentication_failed") == true)
            #expect(service.sessions.count == 1)
        }
    }

    @Test func passiveAuthenticationSwitchedOffForTheMVPDFails() async throws {
        try await BackendFixture.with(configure: { configuration in
            if let index = configuration.mvpds.firstIndex(where: { $0.id == "Cablevision" }) {
                configuration.mvpds[index].passiveAuthn = false
            }
        }) { service, client async throws in
            _ = try await SDKClient(client: client).signIn(Demo.alice, requestor: "REF30")
            let answer = try await client.get(Self.passive(requestor: "SPORTS1"))
            #expect(answer.header("Location")?.contains("error=passive_authentication_failed") == true)
            #expect(service.sessions.count == 1)
        }
    }
}
