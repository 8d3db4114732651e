import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// The media token verifier at `/verify` (spec §6.3): a Programmer's playback server asks whether the token
/// the player got from `deviceShortAuthorize` is good, once.
struct VerifierTests {
    @Test func genuineTokenIsValidOnceThenRefusedAsAReplay() async throws {
        try await BackendFixture.with { _, client async throws in
            let token = try await SDKClient(client: client).mediaToken(resource: "news")
            let admin = AdminClient(client: client)

            let first = try await admin.verify(token, resource: "news")
            #expect(first.status == 200)
            #expect(first.json["verdict"] as? String == "VALID_TOKEN")
            #expect(first.json["valid"] as? Bool == true)
            let body = try #require(first.json["token"] as? [String: Any])
            #expect(body["resourceID"] as? String == "news")

            let replay = try await admin.verify(token, resource: "news")
            #expect(replay.status == 403)
            #expect(replay.json["verdict"] as? String == "TOKEN_ALREADY_USED")
            #expect(replay.json["valid"] as? Bool == false)
            #expect((replay.json["explanation"] as? String)?.contains("already used") == true)
        }
    }

    @Test func base64FormAndJSONBodyAreAcceptedAndShareTheReplayRule() async throws {
        try await BackendFixture.with { _, client async throws in
            let token = try await SDKClient(client: client).mediaToken(resource: "sports")
            let base64 = Data(token.utf8).base64EncodedString()
            let json = try JSONSerialization.data(withJSONObject: ["token": base64, "resource": "sports"])
            let first = try await client.post("/verify", json: json)
            #expect(first.json["verdict"] as? String == "VALID_TOKEN")
            // The same token as raw text is the same token: already used.
            let second = try await AdminClient(client: client).verify(token)
            #expect(second.json["verdict"] as? String == "TOKEN_ALREADY_USED")
        }
    }

    @Test func expiredTokenIsRefusedAsExpired() async throws {
        try await BackendFixture.with { service, client async throws in
            let token = try await SDKClient(client: client).mediaToken(resource: "news")
            service.clock.advance(by: 300 + 5)   // mediaTokenTTL is 300 s in the demo data
            let answer = try await AdminClient(client: client).verify(token, resource: "news")
            #expect(answer.status == 403)
            #expect(answer.json["verdict"] as? String == "TOKEN_EXPIRED")
            #expect((answer.json["explanation"] as? String)?.contains("time to live") == true)
        }
    }

    @Test func tokenStillWithinItsLifetimeIsValid() async throws {
        try await BackendFixture.with { service, client async throws in
            let token = try await SDKClient(client: client).mediaToken(resource: "news")
            service.clock.advance(by: 240)
            #expect(try await AdminClient(client: client).verify(token).json["verdict"] as? String == "VALID_TOKEN")
        }
    }

    @Test func alteredTokenIsRefusedForItsSignature() async throws {
        try await BackendFixture.with { _, client async throws in
            let token = try await SDKClient(client: client).mediaToken(resource: "news")
            let altered = token.replacingOccurrences(of: "<resourceID>news</resourceID>", with: "<resourceID>movies</resourceID>")
            try #require(altered != token)
            let answer = try await AdminClient(client: client).verify(altered, resource: "movies")
            #expect(answer.status == 403)
            #expect(answer.json["verdict"] as? String == "INVALID_SIGNATURE")
            #expect((answer.json["explanation"] as? String)?.contains("altered") == true)
            // The refusal did not use the genuine token up.
            #expect(try await AdminClient(client: client).verify(token).json["verdict"] as? String == "VALID_TOKEN")
        }
    }

    @Test func tokenForAnotherResourceIsRefusedWithoutUsingItUp() async throws {
        try await BackendFixture.with { _, client async throws in
            let token = try await SDKClient(client: client).mediaToken(resource: "news")
            let admin = AdminClient(client: client)
            let wrong = try await admin.verify(token, resource: "sports")
            #expect(wrong.status == 403)
            #expect(wrong.json["verdict"] as? String == "INVALID_RESOURCE_ID")
            #expect((wrong.json["explanation"] as? String)?.contains("different resource") == true)
            #expect(try await admin.verify(token, resource: "news").json["verdict"] as? String == "VALID_TOKEN")
        }
    }

    @Test func tokenSignedByAnotherBackendIsRefused() async throws {
        try await BackendFixture.with { _, client async throws in
            let foreign = SignedToken.sign(
                MediaToken(sessionGUID: "g", requestorID: "REF30", resourceID: "news", ttlMilliseconds: 300_000,
                           issueTime: Date(), mvpdID: "Dish"),
                with: TokenSigningKey())
            let answer = try await AdminClient(client: client).verify(foreign.serialized, resource: "news")
            #expect(answer.json["verdict"] as? String == "INVALID_SIGNATURE")
        }
    }

    @Test func textThatIsNotAMediaTokenIsAFormatError() async throws {
        try await BackendFixture.with { _, client async throws in
            let admin = AdminClient(client: client)
            let answer = try await admin.verify("hello")
            #expect(answer.status == 403)
            #expect(answer.json["verdict"] as? String == "INVALID_TOKEN_FORMAT")
            let missing = try await client.post("/verify", form: [("resource", "news")])
            #expect(missing.status == 400)
            #expect(missing.json["error"] as? String == "missing_parameter")
        }
    }
}
