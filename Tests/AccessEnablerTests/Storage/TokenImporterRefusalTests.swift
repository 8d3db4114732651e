import AccessEnabler
import Foundation
import PassProtocol
import Testing

/// When the token importer (spec §8.6) does not run, and each reason it gives for importing nothing.
struct TokenImporterRefusalTests {
    private func run(_ storage: inout TokenStorage, _ legacy: [LegacyTokenStorage]) -> ImportResult {
        TokenImporter.importTokens(
            into: &storage, from: legacy, requestorID: "Programmer1", allowedMvpds: ["MVPD1", "MVPD2"],
            now: TokenFixtures.now
        )
    }

    /// Runs the importer on an empty storage with one v2 store holding `global`, and returns the one rejection.
    private func rejection(of global: AuthNToken, currentMvpd: String? = "MVPD1") -> ImportRejection.Reason? {
        var storage = TokenStorage()
        let result = run(&storage, [.fixture(currentMvpd: currentMvpd, global: global)])
        #expect(storage == TokenStorage())
        guard case .noUsableToken(let rejections) = result, rejections.count == 1 else {
            Issue.record("expected one rejection, got \(result)")
            return nil
        }
        #expect(rejections[0].owner == .global)
        #expect(rejections[0].storageVersion == 2)
        return rejections[0].reason
    }

    @Test func itDoesNotRunWhenTheRequestorHasAValidToken() {
        var storage = TokenStorage.fixture(authenticated: [("Programmer1", "MVPD2")])
        let before = storage
        let result = run(&storage, [.fixture(global: .fixture())])
        #expect(result == .currentTokenValid(mvpdID: "MVPD2"))
        #expect(storage == before)
    }

    @Test func itRunsWhenTheRequestorsTokenHasExpired() {
        var storage = TokenStorage()
        storage.storeAuthentication(
            requestor: "Programmer1", mvpd: "MVPD2",
            authnToken: AuthNToken.fixture(mvpd: "MVPD2", expires: TokenFixtures.yesterday).signedString, userMeta: nil
        )
        #expect(run(&storage, [.fixture(global: .fixture())]).importedToken?.mvpdID == "MVPD1")
        #expect(storage.currentMvpd(requestor: "Programmer1") == "MVPD1")
    }

    @Test func itRunsWhenTheRequestorsTokenIsFromAnMvpdNoLongerAllowed() {
        var storage = TokenStorage.fixture(authenticated: [("Programmer1", "MVPD9")])
        #expect(run(&storage, [.fixture(global: .fixture())]).importedToken != nil)
    }

    @Test func withoutOlderStorageThereIsNothingToImport() {
        var storage = TokenStorage()
        #expect(run(&storage, []) == .nothingToImport)
        #expect(run(&storage, [LegacyTokenStorage(version: .v2)]) == .nothingToImport)
    }

    @Test func anExpiredTokenIsRefused() {
        #expect(rejection(of: .fixture(expires: TokenFixtures.yesterday)) == .expired(TokenFixtures.yesterday))
    }

    @Test func aTokenOfAnotherMvpdThanTheCachedOneIsRefused() {
        #expect(
            rejection(of: .fixture(mvpd: "MVPD2"), currentMvpd: "MVPD1")
                == .mvpdNotCurrent(mvpdID: "MVPD2", currentMvpdID: "MVPD1")
        )
    }

    @Test func aTokenIsRefusedWhenNoMvpdWasCached() {
        #expect(rejection(of: .fixture(), currentMvpd: nil) == .mvpdNotCurrent(mvpdID: "MVPD1", currentMvpdID: nil))
    }

    @Test func aTokenOfAnMvpdTheRequestorDoesNotIntegrateIsRefused() {
        #expect(rejection(of: .fixture(mvpd: "MVPD9"), currentMvpd: "MVPD9") == .mvpdNotAllowed(mvpdID: "MVPD9"))
    }

    @Test func anUnreadableTokenIsRefused() {
        var storage = TokenStorage()
        var legacy = LegacyTokenStorage.fixture()
        legacy.globalAuthnToken = "<signatureInfo>only one delimiter"
        guard case .noUsableToken(let rejections) = run(&storage, [legacy]), case .unreadable = rejections.first?.reason
        else {
            Issue.record("expected an unreadable token")
            return
        }
    }

    @Test func everyRejectedTokenIsReportedInTheOrderTried() {
        var storage = TokenStorage()
        let legacy = LegacyTokenStorage.fixture(
            global: .fixture(expires: TokenFixtures.yesterday),
            perRequestor: [
                "Other": .fixture(requestor: "Other", mvpd: "MVPD9"), "Programmer1": .fixture(mvpd: "MVPD2"),
            ]
        )
        let result = run(&storage, [legacy])
        guard case .noUsableToken(let rejections) = result else {
            Issue.record("expected rejections, got \(result)")
            return
        }
        #expect(rejections.map(\.owner) == [.global, .requestor("Programmer1"), .requestor("Other")])
        #expect(result.explanation.hasPrefix("no usable token: v2 global token: expired"))
    }
}
