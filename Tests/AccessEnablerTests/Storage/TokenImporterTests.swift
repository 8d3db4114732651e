import AccessEnabler
import Foundation
import PassProtocol
import Testing

/// The token importer of spec §8.6: when it runs, which token it prefers, and why it refuses.
struct TokenImporterTests {
    /// The current requestor is Programmer1, which integrates MVPD1 and MVPD2.
    private func run(_ storage: inout TokenStorage, _ legacy: [LegacyTokenStorage]) -> ImportResult {
        TokenImporter.importTokens(
            into: &storage, from: legacy, requestorID: "Programmer1", allowedMvpds: ["MVPD1", "MVPD2"],
            now: TokenFixtures.now
        )
    }

    // MARK: - Preferences

    @Test func theGlobalTokenIsPreferred() {
        var storage = TokenStorage()
        let global = AuthNToken.fixture(requestor: "Programmer1", guid: "GLOBAL")
        let legacy = LegacyTokenStorage.fixture(
            global: global, globalMetadata: "g-meta", perRequestor: ["Programmer1": .fixture(guid: "OWN")]
        )
        let result = run(&storage, [legacy])
        #expect(result.importedToken?.owner == .global)
        let bucket = storage.bucket(requestor: "Programmer1", mvpd: "MVPD1")
        #expect(bucket?.authnToken.flatMap(\.fixtureGUID) == global.guid)
        #expect(bucket?.userMeta == "g-meta")
        #expect(bucket?.canAuthenticate == true)
        #expect(storage.currentMvpd(requestor: "Programmer1") == "MVPD1")
    }

    @Test func theCurrentRequestorsTokenComesBeforeAnyOther() {
        var storage = TokenStorage()
        let legacy = LegacyTokenStorage.fixture(
            perRequestor: [
                "Aardvark": .fixture(requestor: "Aardvark"), "Programmer1": .fixture(requestor: "Programmer1"),
            ]
        )
        #expect(run(&storage, [legacy]).importedToken?.owner == .requestor("Programmer1"))
    }

    @Test func anyOtherTokenGoesToTheRequestorNamedInsideIt() {
        // Given only Programmer2's token, issued by the cached MVPD that Programmer1 also integrates
        var storage = TokenStorage()
        var legacy = LegacyTokenStorage.fixture(
            canAuthenticate: false, perRequestor: ["Programmer2": .fixture(requestor: "Programmer2")])
        legacy.setMetadata("p2-meta", requestor: "Programmer2")
        // When Programmer1 imports
        let result = run(&storage, [legacy])
        // Then the token lands in Programmer2's bucket with the old flag and metadata (SSO may copy it later)
        #expect(result.importedToken?.requestorID == "Programmer2")
        #expect(result.importedToken?.canAuthenticate == false)
        let bucket = storage.bucket(requestor: "Programmer2", mvpd: "MVPD1")
        #expect(bucket?.canAuthenticate == false)
        #expect(bucket?.userMeta == "p2-meta")
        #expect(storage.requestors["Programmer1"] == nil)
    }

    @Test func anInvalidPreferredTokenFallsThroughToTheNextOne() {
        var storage = TokenStorage()
        let legacy = LegacyTokenStorage.fixture(
            global: .fixture(expires: TokenFixtures.yesterday), perRequestor: ["Programmer1": .fixture(guid: "OWN")]
        )
        let result = run(&storage, [legacy])
        #expect(result.importedToken?.owner == .requestor("Programmer1"))
    }

    @Test func theNewestGenerationIsTriedFirst() {
        var storage = TokenStorage()
        let v1 = LegacyTokenStorage.fixture(version: .v1, global: .fixture(guid: "V1"))
        let v2 = LegacyTokenStorage.fixture(version: .v2, global: .fixture(guid: "V2"))
        let result = run(&storage, [v1, v2])
        #expect(result.importedToken?.storageVersion == 2)
        #expect(storage.bucket(requestor: "Programmer1", mvpd: "MVPD1")?.authnToken?.fixtureGUID == "V2")
    }

    @Test func anOlderGenerationIsUsedWhenTheNewerHasNothingUsable() {
        var storage = TokenStorage()
        let v1 = LegacyTokenStorage.fixture(version: .v1, global: .fixture(guid: "V1"))
        let v2 = LegacyTokenStorage.fixture(version: .v2, global: .fixture(expires: TokenFixtures.yesterday))
        #expect(run(&storage, [v2, v1]).importedToken?.storageVersion == 1)
    }
}
