import AccessEnabler
import Foundation
import Testing
@testable import PassConsole

/// Undo as a three-way merge: before the change, right after it, and now (apps kept writing meanwhile).
struct StorageUndoTests {
    /// REF30 and SPORTS1 signed in on one team's storage.
    static func signedIn() -> TokenStorage {
        var storage = TokenStorage()
        storage.storeAuthentication(requestor: "REF30", mvpd: "Cablevision", authnToken: "ref30-authn", userMeta: "{}")
        storage.storeAuthorization(requestor: "REF30", mvpd: "Cablevision", resource: "news", authzToken: "ref30-news")
        storage.storeAuthentication(requestor: "SPORTS1", mvpd: "Dish", authnToken: "sports-authn", userMeta: nil)
        storage.storeAuthorization(requestor: "SPORTS1", mvpd: "Dish", resource: "news", authzToken: "sports-news-1")
        return storage
    }

    @Test func undoingAClearPutsBackWhatItRemovedAndKeepsWhatWasStoredSince() {
        // Given REF30 cleared, then Sports One stored a newer `news` authorization
        let before = Self.signedIn()
        var after = before
        _ = ClearScope(domain: "d", requestorID: "REF30").apply(to: &after)
        var now = after
        now.storeAuthorization(requestor: "SPORTS1", mvpd: "Dish", resource: "news", authzToken: "sports-news-2")
        // When the clear is undone
        let undo = StorageUndo(domain: "d", before: before, after: after, current: now)
        // Then REF30 is back and the newer Sports One token stays
        #expect(undo.result.bucket(requestor: "REF30", mvpd: "Cablevision")?.authnToken == "ref30-authn")
        #expect(undo.result.bucket(requestor: "REF30", mvpd: "Cablevision")?.authzTokens["news"] == "ref30-news")
        #expect(undo.result.currentMvpd(requestor: "REF30") == "Cablevision")
        #expect(undo.result.bucket(requestor: "SPORTS1", mvpd: "Dish")?.authzTokens["news"] == "sports-news-2")
        #expect(undo.items.contains(.init(domain: "d", item: "authentication token of REF30 / Cablevision", action: .restored)))
        #expect(undo.items.contains {
            $0.action == .kept && $0.item == "authorization token for news (SPORTS1 / Dish)" && $0.reason == "changed after the change"
        })
        #expect(StorageUndo.sentence(undo.items).contains("kept 1: authorization token for news (SPORTS1 / Dish)"))
    }

    @Test func aTokenTheClearRemovedThatANewerOneReplacedIsNotOverwritten() {
        let before = Self.signedIn()
        var after = before
        _ = ClearScope(domain: "d", requestorID: "SPORTS1", mvpdID: "Dish", resource: "news").apply(to: &after)
        var now = after
        now.storeAuthorization(requestor: "SPORTS1", mvpd: "Dish", resource: "news", authzToken: "sports-news-2")
        let undo = StorageUndo(domain: "d", before: before, after: after, current: now)
        #expect(undo.result == now)
        #expect(undo.items == [.init(domain: "d", item: "authorization token for news (SPORTS1 / Dish)", action: .kept,
            reason: "a newer one was stored after the change; the newer one is kept")])
    }

    @Test func aPairThatSignedInAgainKeepsItsNewSignInWhole() {
        // Given everything cleared, then REF30 signed in again with Cablevision (no authorization yet)
        let before = Self.signedIn()
        var after = before
        _ = ClearScope(domain: "d").apply(to: &after)
        var now = after
        now.storeAuthentication(requestor: "REF30", mvpd: "Cablevision", authnToken: "ref30-authn-2", userMeta: "{\"new\":1}")
        let undo = StorageUndo(domain: "d", before: before, after: after, current: now)
        // Then the new sign-in is kept, the old session's authorization is not put back beside it, SPORTS1 comes back
        let ref30 = undo.result.bucket(requestor: "REF30", mvpd: "Cablevision")
        #expect(ref30?.authnToken == "ref30-authn-2")
        #expect(ref30?.authzTokens.isEmpty == true)
        #expect(ref30?.userMeta == "{\"new\":1}")
        #expect(undo.result.bucket(requestor: "SPORTS1", mvpd: "Dish")?.authzTokens["news"] == "sports-news-1")
        #expect(undo.items.contains { $0.action == .kept && $0.item == "authorization token for news (REF30 / Cablevision)" })
    }

    @Test func undoingAnImportRemovesWhatItAddedUnlessAnAppChangedItSince() {
        let before = TokenStorage()
        var after = before
        after.storeAuthentication(requestor: "REF30", mvpd: "Cablevision", authnToken: "imported", userMeta: nil)
        after.storeAuthorization(requestor: "REF30", mvpd: "Cablevision", resource: "news", authzToken: "imported-news")
        var now = after
        now.storeAuthorization(requestor: "REF30", mvpd: "Cablevision", resource: "news", authzToken: "fresh-news")
        let undo = StorageUndo(domain: "d", before: before, after: after, current: now)
        #expect(undo.result.bucket(requestor: "REF30", mvpd: "Cablevision")?.authnToken == nil)
        #expect(undo.result.bucket(requestor: "REF30", mvpd: "Cablevision")?.authzTokens["news"] == "fresh-news")
        #expect(undo.items.contains { $0.action == .removed && $0.item == "authentication token of REF30 / Cablevision" })
    }

    @Test func aBackupWithoutARecordOfTheChangeRestoresOnlyIntoEmptySlots() {
        let before = Self.signedIn()
        var now = TokenStorage()
        now.storeAuthentication(requestor: "SPORTS1", mvpd: "Dish", authnToken: "sports-authn-2", userMeta: nil)
        let undo = StorageUndo(domain: "d", before: before, after: nil, current: now)
        #expect(undo.result.bucket(requestor: "REF30", mvpd: "Cablevision")?.authnToken == "ref30-authn")
        #expect(undo.result.bucket(requestor: "SPORTS1", mvpd: "Dish")?.authnToken == "sports-authn-2")
        #expect(undo.result.bucket(requestor: "SPORTS1", mvpd: "Dish")?.authzTokens.isEmpty == true)
    }
}
