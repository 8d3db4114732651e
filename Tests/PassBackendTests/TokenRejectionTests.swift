import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// AuthN tokens the backend refuses on `authorizeDevice`, each with a `401`, an `<error><details>` in words and
/// an `Authzf-Error-Code` header naming the rule that failed (spec §6.1, §6.6).
struct TokenRejectionTests {
    /// Asserts a `401` token refusal with `code`, and returns its details.
    @discardableResult
    static func expectRejected(_ answer: HTTPResult, code: String, sourceLocation: SourceLocation = #_sourceLocation)
        -> String
    {
        #expect(answer.status == 401, sourceLocation: sourceLocation)
        #expect(answer.header("Authzf-Error-Code") == code, sourceLocation: sourceLocation)
        let details = SDKResponses.parseError(answer.text)
        #expect(details?.isEmpty == false, "no <error><details> in \(answer.text)", sourceLocation: sourceLocation)
        return details ?? ""
    }

    @Test func tokenPresentedFromAnotherDeviceIsADeviceMismatch() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            let answer = try await sdk.authorize(device: Demo.otherDevice, resource: "news", authn: authn)
            let details = Self.expectRejected(answer, code: "device_mismatch")
            #expect(details.contains("another device"))
            // The rightful device still gets through.
            #expect(try await sdk.authorize(resource: "news", authn: authn).status == 200)
        }
    }

    @Test func tokenReboundToAnotherDeviceFailsItsSignature() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            let tampered = SDKClient.rebound(authn, from: Demo.device, to: Demo.otherDevice)
            try #require(tampered != authn)
            let answer = try await sdk.authorize(device: Demo.otherDevice, resource: "news", authn: tampered)
            let details = Self.expectRejected(answer, code: "token_signature_invalid")
            #expect(details.contains("signature"))
        }
    }

    @Test func tokenWithALaterExpiryWrittenInFailsItsSignature() async throws {
        try await BackendFixture.with { service, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try SignedToken<AuthNToken>.parse(try await sdk.signIn(Demo.alice))
            var body = authn.body
            body.expires = body.expires.addingTimeInterval(365 * 86400)
            let forged = SignedToken(signature: authn.signature, body: body, rawBody: body.xmlBody)
            Self.expectRejected(
                try await sdk.authorize(resource: "news", authn: forged.serialized), code: "token_signature_invalid")
            // Signed with another key: same refusal.
            let foreign = SignedToken.sign(authn.body, with: TokenSigningKey())
            Self.expectRejected(
                try await sdk.authorize(resource: "news", authn: foreign.serialized), code: "token_signature_invalid")
            #expect(service.sessions.count == 1)
        }
    }

    @Test func tokenPastTheMVPDsAuthNTTLIsExpired() async throws {
        try await BackendFixture.with { service, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            service.clock.advance(by: 86400 - 120)
            #expect(try await sdk.authorize(resource: "news", authn: authn).status == 200)
            service.clock.advance(by: 240)
            let details = Self.expectRejected(
                try await sdk.authorize(resource: "news", authn: authn), code: "token_expired")
            #expect(details.contains("expired at"))
            // sessionDevice no longer hands out a token for the expired session either.
            let session = try await sdk.sessionDevice(requestor: "REF30", device: Demo.device)
            #expect(session.status == 401)
            #expect(session.header("Authzf-Error-Code") == "token_expired")
        }
    }

    @Test func tokenOfAnotherProgrammerIsARequestorMismatchOnlyForAnMVPDWithAuthenticationPerRequestor() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            // Optimum (Cablevision) binds tokens to the Programmer that obtained them; both Programmers integrate it,
            // so only the requestor differs.
            let alice = try await sdk.signIn(Demo.alice, requestor: "REF30")
            let refused = try await sdk.authorize(requestor: "SPORTS1", resource: "sports", authn: alice)
            let details = Self.expectRejected(refused, code: "token_requestor_mismatch")
            #expect(details.contains("REF30"))
            #expect(details.contains("SPORTS1"))
            // DISH signs in once for every Programmer (no authentication per requestor): the same presentation of
            // REF30's token by SPORTS1 is single sign-on, accepted (issue #17 B.0)
            let carol = try await sdk.signIn(Demo.carol, requestor: "REF30")
            let accepted = try await sdk.authorize(requestor: "SPORTS1", resource: "sports", authn: carol)
            #expect(accepted.status == 200, "\(accepted.text)")
            // SPORTS1 does not integrate Spectrum: a Spectrum token of REF30 is refused by the issuer rule instead
            let bob = try await sdk.signIn(Demo.bob, requestor: "REF30")
            Self.expectRejected(
                try await sdk.authorize(requestor: "SPORTS1", resource: "sports", authn: bob), code: "issuer_not_allowed")
        }
    }

    @Test func aDishTokenOfAnotherProgrammerIsRefusedOnceDishSwitchesToAuthenticationPerRequestor() async throws {
        try await BackendFixture.with { service, client async throws in
            let sdk = SDKClient(client: client)
            let carol = try await sdk.signIn(Demo.carol, requestor: "REF30")
            #expect(try await sdk.authorize(requestor: "SPORTS1", resource: "sports", authn: carol).status == 200)
            service.faults.mvpdOverrides["Dish"] = MVPDOverride(authPerRequestor: true)
            Self.expectRejected(
                try await sdk.authorize(requestor: "SPORTS1", resource: "sports", authn: carol), code: "token_requestor_mismatch")
            // The Programmer that obtained it keeps using it
            #expect(try await sdk.authorize(requestor: "REF30", resource: "news", authn: carol).status == 200)
        }
    }

    @Test func tokenOfASignedOutSessionIsUnknown() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            let (_, end) = try await WebLogin(client: client).follow(
                "/adobe-services/1.0/logout?mso_id=Cablevision&requestor_id=REF30&device_id=\(Demo.device)")
            #expect(end == "adobepass://ios.app")
            Self.expectRejected(try await sdk.authorize(resource: "news", authn: authn), code: "session_unknown")
        }
    }

    @Test(arguments: ["not a token", "<signatureInfo>abc", "<signatureInfo>abc<signatureInfo><other/>"])
    func unreadableTokenIsMalformed(token: String) async throws {
        try await BackendFixture.with { _, client async throws in
            let answer = try await SDKClient(client: client).authorize(resource: "news", authn: token)
            let details = Self.expectRejected(answer, code: "token_malformed")
            #expect(details.hasPrefix("The token cannot be read"))
        }
    }
}
