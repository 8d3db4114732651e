import AccessEnabler
import Foundation
import PassProtocol
import Testing

/// The rules of storage 1.7 (seed 002 §Token Storage, spec §8.2–8.3), on the pure value.
struct TokenStorageTests {
    /// The MVPD of a valid authN token the requestor holds, judged as the SDK does.
    private func authenticatedMvpd(_ storage: TokenStorage, _ requestor: String, allowed: Set<String>) -> String? {
        storage.authnTokens.first { entry in
            entry.requestor == requestor
                && TokenValidity.authN(entry.token, allowedMvpds: allowed, now: TokenFixtures.now).0.isValid
        }?.mvpd
    }

    @Test func theOverviewExampleKeepsBothProgrammersAuthenticated() {
        // Seed 002: Programmer1 integrates MVPD1; Programmer2 integrates MVPD2 only. (The seed's step 4 says
        // "Programmer2 is not integrated with MVPD2", plainly meaning MVPD1, the MVPD of step 2.)
        let programmer1 = Set(["MVPD1"])
        let programmer2 = Set(["MVPD2"])
        var storage = TokenStorage()

        // 1–2. App1 (Programmer1) authenticates with MVPD1
        storage.storeAuthentication(
            requestor: "Programmer1", mvpd: "MVPD1",
            authnToken: AuthNToken.fixture(requestor: "Programmer1", mvpd: "MVPD1").signedString, userMeta: nil
        )
        #expect(authenticatedMvpd(storage, "Programmer1", allowed: programmer1) == "MVPD1")

        // 3–4. App2 (Programmer2) opens: the MVPD1 token is not valid for it, SSO copies nothing
        let app2 = SSOContext(requestorID: "Programmer2", allowedMvpds: programmer2, now: TokenFixtures.now)
        #expect(storage.copySSOToken(app2) == nil)
        #expect(authenticatedMvpd(storage, "Programmer2", allowed: programmer2) == nil)

        // 5. App2 authenticates with MVPD2
        storage.storeAuthentication(
            requestor: "Programmer2", mvpd: "MVPD2",
            authnToken: AuthNToken.fixture(requestor: "Programmer2", mvpd: "MVPD2").signedString, userMeta: nil
        )
        #expect(authenticatedMvpd(storage, "Programmer2", allowed: programmer2) == "MVPD2")

        // 6. Back in App1 the user is still authenticated with Programmer1 (older SDKs had one token only)
        #expect(authenticatedMvpd(storage, "Programmer1", allowed: programmer1) == "MVPD1")
        #expect(storage.currentMvpd(requestor: "Programmer1") == "MVPD1")
        #expect(storage.currentMvpd(requestor: "Programmer2") == "MVPD2")
        #expect(storage.authnTokens.count == 2)
    }

    @Test func aNewAuthorizationOverwritesTheOneForTheSameResource() {
        var storage = TokenStorage.fixture(authenticated: [("Programmer1", "MVPD1")])
        let first = AuthZToken.fixture(resource: "bravo", expires: TokenFixtures.tomorrow).signedString
        let renewed = AuthZToken.fixture(resource: "bravo", expires: TokenFixtures.tomorrow + 3600).signedString
        let other = AuthZToken.fixture(resource: "charlie").signedString
        storage.storeAuthorization(requestor: "Programmer1", mvpd: "MVPD1", resource: "bravo", authzToken: first)
        storage.storeAuthorization(requestor: "Programmer1", mvpd: "MVPD1", resource: "charlie", authzToken: other)
        storage.storeAuthorization(requestor: "Programmer1", mvpd: "MVPD1", resource: "bravo", authzToken: renewed)
        let tokens = storage.bucket(requestor: "Programmer1", mvpd: "MVPD1")?.authzTokens
        #expect(tokens == ["bravo": renewed, "charlie": other])
    }

    @Test func cancelErasesOnlyTheCurrentProgrammersMvpd() {
        // Given Programmer1 authenticated with MVPD1 and MVPD2 (current), Programmer2 with MVPD1
        var storage = TokenStorage.fixture(
            authenticated: [("Programmer1", "MVPD1"), ("Programmer1", "MVPD2"), ("Programmer2", "MVPD1")]
        )
        let programmer2Before = storage.requestors["Programmer2"]
        // When Programmer1 cancels (setSelectedProvider(null))
        storage.eraseCurrentMvpd(requestor: "Programmer1")
        // Then its current MVPD and that MVPD's bucket are gone, and nothing else changed
        #expect(storage.currentMvpd(requestor: "Programmer1") == nil)
        #expect(storage.bucket(requestor: "Programmer1", mvpd: "MVPD2") == nil)
        #expect(storage.bucket(requestor: "Programmer1", mvpd: "MVPD1")?.authnToken != nil)
        #expect(storage.requestors["Programmer2"] == programmer2Before)
    }

    @Test func logoutClearsEveryProgrammerAndMvpd() {
        var storage = TokenStorage.fixture(authenticated: [("Programmer1", "MVPD1"), ("Programmer2", "MVPD2")])
        storage.passiveAuthnCookies["MVPD1"] = ["idp.example": ["session=1"]]
        storage.clearAll()
        #expect(storage.isEmpty)
        #expect(storage.authnTokens.isEmpty)
    }

    @Test func aNewAuthenticationMakesTheMvpdCurrentAndAllowsSkippingThePicker() {
        var storage = TokenStorage.fixture(authenticated: [("Programmer1", "MVPD1")])
        storage.storeAuthentication(
            requestor: "Programmer1", mvpd: "MVPD2", authnToken: AuthNToken.fixture(mvpd: "MVPD2").signedString,
            userMeta: "{}"
        )
        #expect(storage.currentMvpd(requestor: "Programmer1") == "MVPD2")
        #expect(storage.bucket(requestor: "Programmer1", mvpd: "MVPD2")?.canAuthenticate == true)
        #expect(storage.bucket(requestor: "Programmer1", mvpd: "MVPD1")?.authnToken != nil)
    }
}
