import AccessEnabler
import Foundation
import PassProtocol
import Testing

/// The pre-1.7 single-token layouts (spec §8.6): Base64 values under fixed keys.
struct LegacyTokenStorageTests {
    private func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    @Test func valuesAreReadFromTheBase64Table() {
        let token = AuthNToken.fixture().signedString
        let storage = LegacyTokenStorage(
            version: .v2,
            entries: [
                "canAuthenticate": base64("true"), "currentMvpdId": base64("MVPD1"), "authnToken": base64(token),
                "metadataToken": base64(#"{"updated":1}"#), "Programmer2_authnToken": base64("p2-token"),
                "Programmer2_metadataToken": base64("p2-meta"),
            ]
        )
        #expect(storage.canAuthenticate)
        #expect(storage.currentMvpdID == "MVPD1")
        #expect(storage.globalAuthnToken == token)
        #expect(storage.globalMetadata == #"{"updated":1}"#)
        #expect(storage.authnToken(requestor: "Programmer2") == "p2-token")
        #expect(storage.metadata(requestor: "Programmer2") == "p2-meta")
        #expect(storage.requestorsWithTokens == ["Programmer2"])
    }

    @Test func theGlobalTokenKeyDependsOnTheVersion() {
        var v1 = LegacyTokenStorage(version: .v1)
        v1.globalAuthnToken = "t1"
        #expect(v1.entries.keys.sorted() == ["authenticationToken"])
        var v2 = LegacyTokenStorage(version: .v2)
        v2.globalAuthnToken = "t2"
        #expect(v2.entries == ["authnToken": base64("t2")])
        // A v1 store does not read the v2 key, and the other way round
        #expect(LegacyTokenStorage(version: .v1, entries: v2.entries).globalAuthnToken == nil)
    }

    @Test func aMissingOrFalseCanAuthenticateIsFalse() {
        #expect(!LegacyTokenStorage(version: .v2).canAuthenticate)
        #expect(!LegacyTokenStorage(version: .v2, entries: ["canAuthenticate": base64("false")]).canAuthenticate)
        #expect(!LegacyTokenStorage(version: .v2, entries: ["canAuthenticate": "%%%"]).canAuthenticate)
    }

    @Test func itListsTheGlobalTokenFirstThenEachRequestorsWithMetadata() {
        let storage = LegacyTokenStorage.fixture(
            global: .fixture(), globalMetadata: "g-meta",
            perRequestor: ["Zeta": .fixture(requestor: "Zeta"), "Alpha": .fixture(requestor: "Alpha")]
        )
        let tokens = storage.legacyAuthnTokens
        #expect(tokens.map(\.owner) == [.global, .requestor("Alpha"), .requestor("Zeta")])
        #expect(tokens.first?.userMeta == "g-meta")
        #expect(storage.storageVersion == 2)
    }

    @Test func unknownKeysSurviveAJSONRoundTrip() throws {
        var storage = LegacyTokenStorage.fixture(version: .v1, global: .fixture())
        storage.entries["somethingElse"] = base64("kept")
        let data = try JSONEncoder().encode(storage)
        let decoded = try JSONDecoder().decode(LegacyTokenStorage.self, from: data)
        #expect(decoded == storage)
        #expect(decoded.value(forKey: "somethingElse") == "kept")
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["version"] as? Int == 1)
    }
}
