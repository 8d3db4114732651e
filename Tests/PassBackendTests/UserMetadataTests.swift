import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// `usermetadata` / `getMetadataDevice` (spec §5.2.7, §6.5) and `cookieDomains`.
struct UserMetadataTests {
    @Test(arguments: ["usermetadata", "getMetadataDevice"])
    func metadataIsTheSignedInSubscribers(endpoint: String) async throws {
        try await BackendFixture.with { _, client async throws in
            _ = try await SDKClient(client: client).signIn(Demo.alice)
            let answer = try await client.post("/adobe-services/1.0/\(endpoint)",
                form: [("requestor_id", "REF30"), ("device_id", Demo.device)])
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type")?.contains("json") == true)
            let data = try #require(answer.json["data"] as? [String: Any])
            #expect(data["householdID"] as? String == "hh-alice")
            #expect(data["zip"] as? [String] == ["10001"])
            #expect(data["userID"] as? String == "Cablevision-alice")
            let rating = try #require(data["maxRating"] as? [String: Any])
            #expect(rating["MPAA"] as? String == "PG-13")
            #expect(rating["VCHIP"] as? String == "TV-14")
            #expect((answer.json["updated"] as? NSNumber)?.int64Value ?? 0 > 0)
        }
    }

    @Test func eachSubscriberGetsTheirOwnMetadata() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            _ = try await sdk.signIn(Demo.alice, device: Demo.device)
            _ = try await sdk.signIn(Demo.carol, device: Demo.otherDevice)
            let carol = try await client.post("/adobe-services/usermetadata",
                form: [("requestor", "REF30"), ("device_id", Demo.otherDevice)])
            let data = try #require(carol.json["data"] as? [String: Any])
            #expect(data["householdID"] as? String == "hh-carol")
            #expect((data["maxRating"] as? [String: Any])?["MPAA"] as? String == "R")
        }
    }

    @Test func noSessionMeansNoMetadata() async throws {
        try await BackendFixture.with { service, client async throws in
            let before = try await client.post("/adobe-services/1.0/usermetadata",
                form: [("requestor_id", "REF30"), ("device_id", Demo.device)])
            #expect(before.status == 404)
            #expect(before.header("Authzf-Error-Code") == "session_unknown")

            _ = try await SDKClient(client: client).signIn(Demo.alice)
            // Another Programmer on the same device has no session of its own.
            let other = try await client.post("/adobe-services/1.0/usermetadata",
                form: [("requestor_id", "SPORTS1"), ("device_id", Demo.device)])
            #expect(other.status == 404)

            service.revokeSessions(deviceID: Demo.device)
            let revoked = try await client.post("/adobe-services/1.0/usermetadata",
                form: [("requestor_id", "REF30"), ("device_id", Demo.device)])
            #expect(revoked.status == 404)
        }
    }

    @Test(arguments: ["/adobe-services/cookieDomains", "/adobe-services/1.0/cookieDomains"])
    func cookieDomainsNameEveryMVPD(path: String) async throws {
        try await BackendFixture.with { _, client async throws in
            let answer = try await client.get(path)
            #expect(answer.status == 200)
            #expect(Set(answer.json.keys) == ["Cablevision", "Spectrum", "Dish", "Rogers"])
            #expect((answer.json["Cablevision"] as? [String])?.contains("127.0.0.1") == true)
        }
    }
}

/// `metadataEncryption` is checked when the configuration loads: a bad key stops the backend with its reason.
struct MetadataEncryptionConfigurationTests {
    @Test func aProgrammerKeyThatIsNotAnRSAPublicKeyIsAConfigurationProblem() throws {
        var configuration = try BackendConfiguration.load(path: BackendFixture.configPath)
        #expect(configuration.problems().isEmpty)
        configuration.programmers[0].metadataEncryption = MetadataEncryption(items: ["encryptedZip"], publicKey: "not a key")
        #expect(configuration.problems() == ["Programmer REF30: its metadataEncryption.publicKey is not an RSA public key (PEM, 2048 bits or more)"])
    }
}
