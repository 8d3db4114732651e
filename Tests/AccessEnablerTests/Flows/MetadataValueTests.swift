import AccessEnabler
import Foundation
import PassProtocol
import Testing
import _CryptoExtras

/// getMetadata → setMetadataStatus through the real SDK against the real backend (spec §1.11, the cookbook's
/// callback list): each key, the backend's JSON values as they were sent, and the app's dictionary handed back; on
/// both protocols (REST API v2: the profile's attributes, the decision's end).
struct MetadataValueTests {
    /// The app's answers, in order: (value, encrypted, key, arguments).
    private static func answers(_ app: TestApp) -> [(JSONValue?, Bool, Int, [String: String]?)] {
        app.delegate.callbacks.compactMap {
            if case .setMetadataStatus(let value, let encrypted, let key, let arguments) = $0 { (value, encrypted, key, arguments) } else { nil }
        }
    }

    @Test("each user-metadata item is the JSON value the backend holds: string, array, object, number, boolean", arguments: EntitlementProtocol.allCases)
    func userMetadataValuesKeepTheirJSONType(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let carol = try #require(fixture.service.configuration.subscribers.first { $0.username == "carol" })
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            let names = ["householdID", "zip", "maxRating", "typeID", "allowMirroring", "channelID"]
            app.delegate.clear()
            for name in names {
                app.enabler.getMetadata([PassConstants.METADATA_OPCODE_KEY: String(PassConstants.METADATA_USER_META),
                                         PassConstants.METADATA_USER_META_KEY: name])
            }
            await app.settle()
            let answers = Self.answers(app)
            #expect(answers.count == names.count)
            for (name, answer) in zip(names, answers) {
                #expect(answer.0 == carol.metadata[name], "\(name)")
                #expect(answer.1 == false)
                #expect(answer.2 == PassConstants.METADATA_USER_META)
            }
            // The kinds the demo data holds, so a regression to "everything is a string" fails here.
            #expect(answers.map(\.0) == [
                "hh-carol", ["60601"], ["MPAA": "R", "VCHIP": "TV-MA"], 2, true, ["news-east", "sports-1"],
            ])
            // The user ID the backend adds to every subscriber's metadata.
            app.enabler.getMetadata(["opCode": "3", "user_metadata_name": "userID"])
            app.enabler.getMetadata(["opCode": "3", "user_metadata_name": "noSuchItem"])
            await app.settle()
            #expect(Self.answers(app).suffix(2).map(\.0) == [.string(carol.userID), nil])
        }
    }

    @Test("an item the Programmer receives encrypted arrives as Base64 RSA ciphertext only its private key opens", arguments: EntitlementProtocol.allCases)
    func encryptedItemIsCiphertextForTheProgrammer(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            app.delegate.clear()
            app.enabler.getMetadata(["opCode": "3", "user_metadata_name": "encryptedZip"])
            app.enabler.getMetadata(["opCode": "3", "user_metadata_name": "householdID"])
            await app.settle()
            let answers = Self.answers(app)
            #expect(answers.map(\.1) == [true, false])
            guard case .string(let base64)? = answers.first?.0 else {
                Issue.record("encryptedZip is not a string: \(String(describing: answers.first?.0))")
                return
            }
            #expect(base64 != "60601")
            // REF30's private key (the demo's, beside Config/demo.json) opens it.
            let pem = try String(contentsOfFile: URL(fileURLWithPath: SDKFixture.configPath).deletingLastPathComponent()
                .appendingPathComponent("keys/REF30-metadata.pem").path, encoding: .utf8)
            let key = try _RSA.Encryption.PrivateKey(pemRepresentation: pem)
            let ciphertext = try #require(Data(base64Encoded: base64))
            #expect(String(decoding: try key.decrypt(ciphertext, padding: .PKCS1_OAEP_SHA256), as: UTF8.self) == "60601")
        }
    }

    @Test("a Programmer without an encryption key gets every item as it is", arguments: EntitlementProtocol.allCases)
    func withoutAKeyItemsAreNotEncrypted(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(bundleID: "com.example.news.sports", wire: wire)
            await app.start("SPORTS1", base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            app.delegate.clear()
            app.enabler.getMetadata(["opCode": "3", "user_metadata_name": "encryptedZip"])
            await app.settle()
            #expect(Self.answers(app).map(\.0) == ["60601"])
            #expect(Self.answers(app).map(\.1) == [false])
        }
    }

    @Test("setMetadataStatus hands back the dictionary the app passed, opCode and unknown keys included", arguments: EntitlementProtocol.allCases)
    func argumentsComeBackExactlyAsPassed(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            let asked: [[String: String]] = [
                ["opCode": "2", "requestTag": "r-1"],
                ["opCode": "0"],
                ["opCode": "1", "resource_id": "news", "requestTag": "r-2"],
                ["opCode": "seven", "requestTag": "r-3"],
                ["requestTag": "r-4"],
                ["opCode": "99999999999999999999999"],
            ]
            for keys in asked { app.enabler.getMetadata(keys) }
            await app.settle()
            let answers = Self.answers(app)
            #expect(answers.map(\.3) == asked)
            #expect(answers.map(\.2) == [
                PassConstants.METADATA_DEVICE_ID, PassConstants.METADATA_AUTHENTICATION, PassConstants.METADATA_AUTHORIZATION,
                PassConstants.METADATA_KEY_INVALID, PassConstants.METADATA_KEY_INVALID, PassConstants.METADATA_KEY_INVALID,
            ])
            // Signed out: the device ID answers; the expiries and the invalid keys answer nil.
            #expect(answers[0].0 == .string(app.configuration.deviceID))
            #expect(answers.dropFirst().allSatisfy { $0.0 == nil })
        }
    }

    @Test("the expiries are the tokens' dates as strings, the device ID the one the SDK sends", arguments: EntitlementProtocol.allCases)
    func expiriesAndDeviceIDAreStrings(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            app.enabler.getAuthorization("news")
            await app.settle()
            app.delegate.clear()
            app.enabler.getMetadata(["opCode": "0"])
            app.enabler.getMetadata(["opCode": "1", "resource_id": "news"])
            app.enabler.getMetadata(["opCode": "1", "resource_id": "sports"])
            app.enabler.getMetadata(["opCode": "2"])
            await app.settle()
            let answers = Self.answers(app)
            #expect(answers.count == 4)
            // Dish keeps authentication a week and authorization a day (Config/demo.json).
            let authn = try #require(answers[0].0?.plainText.flatMap(TokenDate.parse))
            let authz = try #require(answers[1].0?.plainText.flatMap(TokenDate.parse))
            let now = fixture.service.now()
            #expect(abs(authn.timeIntervalSince(now) - 604_800) < 120)
            #expect(abs(authz.timeIntervalSince(now) - 86_400) < 120)
            #expect(answers[2].0 == nil)  // no authorization for sports yet
            #expect(answers[3].0 == .string(app.configuration.deviceID))
        }
    }
}
