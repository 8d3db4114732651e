import AccessEnabler
import Foundation
import PassProtocol
import Testing

/// Silent SSO between requestors (spec §8.4): what is copied, and what never is.
struct SSOCopyTests {
    /// Programmer2 integrates MVPD1, MVPD2 and the per-requestor MVPD3.
    private func context(deviceID: String? = TokenFixtures.deviceID) -> SSOContext {
        SSOContext(
            requestorID: "Programmer2", allowedMvpds: ["MVPD1", "MVPD2", "MVPD3"], authnPerRequestorMvpds: ["MVPD3"],
            passiveAuthnMvpds: ["MVPD3"], now: TokenFixtures.now, deviceID: deviceID
        )
    }

    /// Programmer1 authenticated with `mvpd`, with user metadata, preauthorization and an authZ token.
    private func storage(programmer1Mvpd mvpd: String, token: AuthNToken? = nil) -> TokenStorage {
        var storage = TokenStorage()
        let authn = token ?? .fixture(requestor: "Programmer1", mvpd: mvpd)
        storage.storeAuthentication(
            requestor: "Programmer1", mvpd: mvpd, authnToken: authn.signedString, userMeta: "meta")
        storage.storePreauthorized(requestor: "Programmer1", mvpd: mvpd, resources: ["bravo"])
        storage.storeAuthorization(
            requestor: "Programmer1", mvpd: mvpd, resource: "bravo",
            authzToken: AuthZToken.fixture(mvpd: mvpd).signedString
        )
        return storage
    }

    @Test func aTokenOfAnMvpdWithoutAuthenticationPerRequestorIsCopied() {
        var storage = storage(programmer1Mvpd: "MVPD1")
        let source = storage.bucket(requestor: "Programmer1", mvpd: "MVPD1")
        // When Programmer2 starts without a token of its own
        let copy = storage.copySSOToken(context())
        // Then Programmer1's token, metadata and preauthorization are copied, not its authZ tokens
        #expect(copy == SSOCopy(sourceRequestorID: "Programmer1", mvpdID: "MVPD1"))
        let copied = storage.bucket(requestor: "Programmer2", mvpd: "MVPD1")
        #expect(copied?.authnToken == source?.authnToken)
        #expect(copied?.canAuthenticate == true)
        #expect(copied?.userMeta == "meta")
        #expect(copied?.preauthorizedResources == ["bravo"])
        #expect(copied?.authzTokens.isEmpty == true)
        #expect(storage.currentMvpd(requestor: "Programmer2") == "MVPD1")
        #expect(storage.bucket(requestor: "Programmer1", mvpd: "MVPD1") == source)
    }

    @Test func aTokenOfAPerRequestorMvpdIsNeverCopied() {
        var storage = storage(programmer1Mvpd: "MVPD3")
        let before = storage
        #expect(storage.copySSOToken(context()) == nil)
        #expect(storage == before)
    }

    @Test func theCopyIsRestrictedToTheCurrentMvpd() {
        // Given Programmer2 last used MVPD2 (cached selection, no token) and Programmer1 holds an MVPD1 token
        var storage = storage(programmer1Mvpd: "MVPD1")
        storage.requestors["Programmer2"] = TokenStorage.RequestorBucket(currentMvpdID: "MVPD2")
        #expect(storage.copySSOToken(context()) == nil)
        // With MVPD1 as the current MVPD the copy is made
        storage.requestors["Programmer2"] = TokenStorage.RequestorBucket(currentMvpdID: "MVPD1")
        #expect(storage.copySSOToken(context())?.mvpdID == "MVPD1")
    }

    @Test func nothingIsCopiedWhenTheRequestorIsAuthenticated() {
        var storage = storage(programmer1Mvpd: "MVPD1")
        storage.storeAuthentication(
            requestor: "Programmer2", mvpd: "MVPD2",
            authnToken: AuthNToken.fixture(requestor: "Programmer2", mvpd: "MVPD2").signedString, userMeta: nil
        )
        #expect(storage.copySSOToken(context()) == nil)
        #expect(storage.currentMvpd(requestor: "Programmer2") == "MVPD2")
    }

    @Test func aTokenOfAnMvpdTheRequestorDoesNotIntegrateIsNotCopied() {
        var storage = storage(programmer1Mvpd: "MVPD9")
        #expect(storage.copySSOToken(context()) == nil)
    }

    @Test func anExpiredTokenIsNotCopied() {
        var storage = storage(programmer1Mvpd: "MVPD1", token: .fixture(expires: TokenFixtures.yesterday))
        #expect(storage.copySSOToken(context()) == nil)
    }

    @Test func aTokenOfAnotherDeviceIsNotCopied() {
        // Seed 003, same team but another bundle prefix: the token is seen in the shared store but not used
        var storage = storage(programmer1Mvpd: "MVPD1", token: .fixture(deviceID: "device-B"))
        #expect(storage.copySSOToken(context()) == nil)
        #expect(storage.copySSOToken(context(deviceID: nil)) != nil)
    }

    @Test func theTokenThatExpiresLastIsCopied() {
        var storage = storage(programmer1Mvpd: "MVPD1")
        let later = AuthNToken.fixture(requestor: "Programmer3", mvpd: "MVPD2", expires: TokenFixtures.tomorrow + 3600)
        storage.storeAuthentication(
            requestor: "Programmer3", mvpd: "MVPD2", authnToken: later.signedString, userMeta: nil)
        #expect(storage.copySSOToken(context()) == SSOCopy(sourceRequestorID: "Programmer3", mvpdID: "MVPD2"))
    }
}
