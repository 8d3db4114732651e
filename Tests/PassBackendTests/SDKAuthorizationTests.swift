import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// `authorizeDevice` and `deviceShortAuthorize` (spec §5.2.5–5.2.6): authZ tokens per resource and device,
/// MVPD denials, and the media token the player gets.
struct SDKAuthorizationTests {
    @Test(arguments: ["news", "sports", "kids"])
    func entitledResourceGetsASignedAuthZTokenForThatResourceAndDevice(resource: String) async throws {
        try await BackendFixture.with { service, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            let authz = try SignedToken<AuthZToken>.parse(try await sdk.authzToken(resource: resource, authn: authn))
            #expect(authz.verify(with: service.signingKey.publicKey))
            #expect(authz.body.resourceID == resource)
            #expect(authz.body.requestorID == "REF30")
            #expect(authz.body.mvpdID == "Cablevision")
            #expect(authz.body.matches(deviceID: Demo.device))
            #expect(!authz.body.matches(deviceID: Demo.otherDevice))
            let ttl = authz.body.expires.timeIntervalSince(service.now())
            #expect(abs(ttl - 3600) < 10, "authZ TTL is Optimum's 3600 s: \(ttl)")
        }
    }

    @Test func unversionedAuthorizeAliasAnswersTheSame() async throws {
        try await BackendFixture.with { _, client async throws in
            let authn = try await SDKClient(client: client).signIn(Demo.bob, requestor: "KIDSNET")
            let answer = try await client.post("/adobe-services/authorize", form: [
                ("resource_id", "kids"), ("requestor_id", "KIDSNET"), ("device_id", Demo.device),
                ("authentication_token", authn),
            ])
            #expect(answer.status == 200)
            #expect(try SignedToken<AuthZToken>.parse(try SDKResponses.parseAuthzToken(answer.text)).body.resourceID == "kids")
        }
    }

    @Test func resourceOutsideTheSubscribersPackageIs403WithTheReason() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            let answer = try await sdk.authorize(resource: "movies", authn: authn)
            #expect(answer.status == 403)
            #expect(answer.header("Authzf-Error-Code") == "user_not_authorized")
            let details = try #require(SDKResponses.parseError(answer.text))
            #expect(details.contains("not authorized"))
            #expect(details.contains("movies"))
            #expect(throws: SDKResponseError.denied(details: details)) { try SDKResponses.parseAuthzToken(answer.text) }
        }
    }

    @Test func mrssResourceIsAuthorizedByItsTitle() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            let mrss = "<rss version=\"2.0\"><channel><title>sports</title><item><title>Final</title></item></channel></rss>"
            #expect(try await sdk.authorize(resource: mrss, authn: authn).status == 200)
            let denied = mrss.replacingOccurrences(of: "<title>sports</title>", with: "<title>movies</title>")
            #expect(try await sdk.authorize(resource: denied, authn: authn).status == 403)
        }
    }

    @Test func unknownResourceIsRefused() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.carol)   // entitled to "*"
            let answer = try await sdk.authorize(resource: "no-such-show", authn: authn)
            #expect(answer.status == 403)
            #expect(SDKResponses.parseError(answer.text)?.contains("Unknown resource no-such-show") == true)
        }
    }

    @Test func authorizeWithoutAResourceOrTokenIs400() async throws {
        try await BackendFixture.with { _, client async throws in
            let noResource = try await client.post("/adobe-services/1.0/authorizeDevice", form: [
                ("requestor_id", "REF30"), ("device_id", Demo.device), ("authentication_token", "x"),
            ])
            #expect(noResource.status == 400)
            #expect((noResource.json["message"] as? String)?.contains("resource_id") == true)
            let noToken = try await client.post("/adobe-services/1.0/authorizeDevice", form: [
                ("requestor_id", "REF30"), ("device_id", Demo.device), ("resource_id", "news"),
            ])
            #expect(noToken.status == 400)
            #expect((noToken.json["message"] as? String)?.contains("authentication_token") == true)
        }
    }

    @Test func shortAuthorizeAnswersTheRawMediaTokenForTheSession() async throws {
        try await BackendFixture.with { service, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try SignedToken<AuthNToken>.parse(try await sdk.signIn(Demo.alice))
            let authz = try await sdk.authzToken(resource: "news", authn: authn.serialized)
            let answer = try await sdk.shortAuthorize(authz: authz)
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type")?.hasPrefix("text/plain") == true)
            #expect(answer.text.hasPrefix("<signatureInfo>"))
            let media = try SignedToken<MediaToken>.parse(answer.text)
            #expect(media.verify(with: service.signingKey.publicKey))
            #expect(media.body.resourceID == "news")
            #expect(media.body.requestorID == "REF30")
            #expect(media.body.mvpdID == "Cablevision")
            #expect(media.body.sessionGUID == authn.body.guid)
            #expect(media.body.ttlMilliseconds == 300_000)
        }
    }

    @Test func shortAuthorizeRefusesAnAuthZTokenFromAnotherDevice() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authz = try await sdk.authzToken(resource: "news", authn: try await sdk.signIn(Demo.alice))
            let answer = try await sdk.shortAuthorize(device: Demo.otherDevice, authz: authz)
            #expect(answer.status == 401)
            #expect(answer.header("Authzf-Error-Code") == "device_mismatch")
        }
    }

    @Test func shortAuthorizeRefusesAnAuthZTokenForAnotherResource() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authz = try await sdk.authzToken(resource: "news", authn: try await sdk.signIn(Demo.alice))
            let answer = try await sdk.shortAuthorize(authz: authz, resource: "sports")
            #expect(answer.status == 401)
            #expect(answer.header("Authzf-Error-Code") == "resource_mismatch")
            #expect(SDKResponses.parseError(answer.text)?.contains("resource news, not sports") == true)
        }
    }

    @Test func shortAuthorizeRefusesAnExpiredAuthZToken() async throws {
        try await BackendFixture.with { service, client async throws in
            let sdk = SDKClient(client: client)
            let authz = try await sdk.authzToken(resource: "news", authn: try await sdk.signIn(Demo.alice))
            service.clock.advance(by: 3600 + 60)
            let answer = try await sdk.shortAuthorize(authz: authz)
            #expect(answer.status == 401)
            #expect(answer.header("Authzf-Error-Code") == "token_expired")
        }
    }
}
