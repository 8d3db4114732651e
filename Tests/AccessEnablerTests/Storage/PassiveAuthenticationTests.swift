import AccessEnabler
import Foundation
import PassProtocol
import Testing

/// When passive authentication is tried (spec §8.5), and the clean-up that runs before it (spec §8.4).
struct PassiveAuthenticationTests {
    /// Programmer2 integrates MVPD1 (SSO), MVPD3 (per requestor, passive) and MVPD4 (per requestor, not passive).
    private let context = SSOContext(
        requestorID: "Programmer2", allowedMvpds: ["MVPD1", "MVPD3", "MVPD4"],
        authnPerRequestorMvpds: ["MVPD3", "MVPD4"],
        passiveAuthnMvpds: ["MVPD3"], now: TokenFixtures.now, deviceID: TokenFixtures.deviceID
    )

    /// Programmer1 authenticated with each MVPD of `mvpds`.
    private func storage(programmer1: [String], expires: Date = TokenFixtures.tomorrow) -> TokenStorage {
        var storage = TokenStorage()
        for mvpd in programmer1 {
            let token = AuthNToken.fixture(requestor: "Programmer1", mvpd: mvpd, expires: expires).signedString
            storage.storeAuthentication(requestor: "Programmer1", mvpd: mvpd, authnToken: token, userMeta: nil)
        }
        return storage
    }

    // MARK: - (a) no current MVPD

    @Test func withoutACurrentMvpdAnotherRequestorsPassiveMvpdIsTried() {
        #expect(storage(programmer1: ["MVPD3"]).passiveAuthenticationCandidate(context) == "MVPD3")
    }

    @Test func anMvpdWithoutPassiveAuthenticationIsNotTried() {
        #expect(storage(programmer1: ["MVPD4"]).passiveAuthenticationCandidate(context) == nil)
    }

    @Test func anSSOMvpdIsNotTriedPassively() {
        // Its token is copied instead (copySSOToken)
        #expect(storage(programmer1: ["MVPD1"]).passiveAuthenticationCandidate(context) == nil)
    }

    @Test func anExpiredTokenElsewhereStartsNothing() {
        let storage = storage(programmer1: ["MVPD3"], expires: TokenFixtures.yesterday)
        #expect(storage.passiveAuthenticationCandidate(context) == nil)
    }

    // MARK: - (b) per-requestor current MVPD

    @Test func theCurrentPerRequestorMvpdIsTriedWhenAnotherRequestorHoldsIt() {
        var storage = storage(programmer1: ["MVPD3"])
        storage.requestors["Programmer2"] = TokenStorage.RequestorBucket(currentMvpdID: "MVPD3")
        #expect(storage.passiveAuthenticationCandidate(context) == "MVPD3")
    }

    @Test func anotherMvpdThanTheCurrentOneIsNotTried() {
        var storage = storage(programmer1: ["MVPD3"])
        storage.requestors["Programmer2"] = TokenStorage.RequestorBucket(currentMvpdID: "MVPD4")
        #expect(storage.passiveAuthenticationCandidate(context) == nil)
    }

    @Test func aCurrentMvpdWithoutAuthenticationPerRequestorIsNotTried() {
        var storage = storage(programmer1: ["MVPD3"])
        storage.requestors["Programmer2"] = TokenStorage.RequestorBucket(currentMvpdID: "MVPD1")
        #expect(storage.passiveAuthenticationCandidate(context) == nil)
    }

    @Test func nothingIsTriedWhenTheRequestorIsAuthenticated() {
        var storage = storage(programmer1: ["MVPD3"])
        let own = AuthNToken.fixture(requestor: "Programmer2", mvpd: "MVPD3").signedString
        storage.storeAuthentication(requestor: "Programmer2", mvpd: "MVPD3", authnToken: own, userMeta: nil)
        #expect(storage.passiveAuthenticationCandidate(context) == nil)
    }

    // MARK: - Clean-up after an MVPD switched to per requestor

    @Test func aCopiedTokenOfAnMvpdNowPerRequestorIsWipedAndPassiveTakesOver() {
        // Given Programmer2 holds an SSO copy of Programmer1's MVPD3 token (copied before MVPD3 went per requestor)
        var storage = storage(programmer1: ["MVPD3"])
        let copied = storage.bucket(requestor: "Programmer1", mvpd: "MVPD3")
        storage.requestors["Programmer2"] = TokenStorage.RequestorBucket(
            currentMvpdID: "MVPD3", mvpds: ["MVPD3": copied!])
        // When the clean-up runs
        #expect(storage.removeTokensAfterAuthnPerRequestorSwitch(context) == ["MVPD3"])
        // Then Programmer2's bucket is gone, Programmer1's stays, and passive authentication is tried
        #expect(storage.requestors["Programmer2"] == nil)
        #expect(storage.bucket(requestor: "Programmer1", mvpd: "MVPD3") == copied)
        #expect(storage.passiveAuthenticationCandidate(context) == "MVPD3")
    }

    @Test func aTokenTheRequestorObtainedItselfIsKept() {
        var storage = TokenStorage()
        let own = AuthNToken.fixture(requestor: "Programmer2", mvpd: "MVPD3").signedString
        storage.storeAuthentication(requestor: "Programmer2", mvpd: "MVPD3", authnToken: own, userMeta: nil)
        let before = storage
        #expect(storage.removeTokensAfterAuthnPerRequestorSwitch(context).isEmpty)
        #expect(storage == before)
    }

    @Test func aCopiedTokenOfAnSSOMvpdIsKept() {
        var storage = storage(programmer1: ["MVPD1"])
        storage.copySSOToken(context)
        let before = storage
        #expect(storage.removeTokensAfterAuthnPerRequestorSwitch(context).isEmpty)
        #expect(storage == before)
    }
}
