import AccessEnabler
import Foundation
import PassProtocol
import PassSimulator
import Testing

/// The token sanitizer (seed 002 §Token Sanitizer, spec §8.7).
struct TokenSanitizerTests {
    @Test func tokensOfAnotherDeviceAreRemovedWithTheirWholeBucket() {
        // Given Programmer1's tokens from this device and Programmer2's from device-B, each with an authZ token
        var storage = TokenStorage()
        storage.storeAuthentication(
            requestor: "Programmer1", mvpd: "MVPD1", authnToken: AuthNToken.fixture().signedString, userMeta: nil
        )
        storage.storeAuthorization(
            requestor: "Programmer1", mvpd: "MVPD1", resource: "bravo", authzToken: AuthZToken.fixture().signedString
        )
        let foreign = AuthNToken.fixture(requestor: "Programmer2", mvpd: "MVPD2", deviceID: "device-B")
        storage.storeAuthentication(
            requestor: "Programmer2", mvpd: "MVPD2", authnToken: foreign.signedString, userMeta: nil)
        storage.storeAuthorization(
            requestor: "Programmer2", mvpd: "MVPD2", resource: "bravo",
            authzToken: AuthZToken.fixture(requestor: "Programmer2", mvpd: "MVPD2", deviceID: "device-B").signedString
        )
        let own = storage.requestors["Programmer1"]

        // When the sanitizer runs on this device
        let removed = TokenSanitizer.sanitize(&storage, deviceID: TokenFixtures.deviceID)

        // Then Programmer2's bucket (authZ included) is gone, Programmer1's untouched
        #expect(
            removed == [
                RemovedToken(
                    requestorID: "Programmer2", mvpdID: "MVPD2", reason: .boundToAnotherDevice, removedAuthzTokens: 1)
            ]
        )
        #expect(storage.requestors["Programmer2"] == nil)
        #expect(storage.requestors["Programmer1"] == own)
    }

    @Test func aCleanStorageIsLeftAsItIs() {
        var storage = TokenStorage.fixture(authenticated: [("Programmer1", "MVPD1"), ("Programmer2", "MVPD2")])
        let before = storage
        #expect(TokenSanitizer.sanitize(&storage, deviceID: TokenFixtures.deviceID).isEmpty)
        #expect(storage == before)
    }

    @Test func unreadableTokensAreRemoved() {
        var storage = TokenStorage.fixture(authenticated: [("Programmer1", "MVPD1")])
        storage.storeAuthentication(requestor: "Programmer1", mvpd: "MVPD2", authnToken: "garbage", userMeta: nil)
        let removed = TokenSanitizer.sanitize(&storage, deviceID: TokenFixtures.deviceID)
        #expect(removed.map(\.mvpdID) == ["MVPD2"])
        guard case .unreadable = removed.first?.reason else {
            Issue.record("expected an unreadable token, got \(removed)")
            return
        }
        // The removed MVPD was current; the remaining bucket stays, without a current MVPD
        #expect(storage.bucket(requestor: "Programmer1", mvpd: "MVPD1") != nil)
        #expect(storage.currentMvpd(requestor: "Programmer1") == nil)
    }

    @Test func expiredTokensOfThisDeviceAreNotTheSanitizersBusiness() {
        var storage = TokenStorage()
        let expired = AuthNToken.fixture(expires: TokenFixtures.yesterday).signedString
        storage.storeAuthentication(requestor: "Programmer1", mvpd: "MVPD1", authnToken: expired, userMeta: nil)
        #expect(TokenSanitizer.sanitize(&storage, deviceID: TokenFixtures.deviceID).isEmpty)
    }

    @Test func upgradingFromIOS6ToIOS7ClearsTheTokensObtainedOnIOS6() {
        // Given a token obtained on iOS 6 with the MAC-based device ID
        let app = AppIdentity(bundleID: "com.x.y.AppA", teamID: "TEAMX")
        var phone = DeviceProfile.fixture(osVersion: "6.1.4")
        let ios6ID = DeviceIdentity.deviceID(profile: phone, app: app)
        var storage = TokenStorage()
        let token = AuthNToken.fixture(deviceID: ios6ID).signedString
        storage.storeAuthentication(requestor: "Programmer1", mvpd: "MVPD1", authnToken: token, userMeta: nil)
        #expect(TokenSanitizer.sanitize(&storage, deviceID: ios6ID).isEmpty)
        // When the phone is upgraded to iOS 7
        phone.osVersion = "7.0"
        let removed = TokenSanitizer.sanitize(&storage, deviceID: DeviceIdentity.deviceID(profile: phone, app: app))
        // Then the user is unauthenticated
        #expect(removed.count == 1)
        #expect(storage.authnTokens.isEmpty)
    }

    @Test func appsOfOneTeamWithDifferentPrefixesWipeEachOthersTokens() {
        // Seed 003, the SDK 1.8 case: com.x.y.AppA and com.z.AppB share the team's storage, not the device ID
        let phone = DeviceProfile.fixture()
        let appA = AppIdentity(bundleID: "com.x.y.AppA", teamID: "TEAMX")
        let appB = AppIdentity(bundleID: "com.z.AppB", teamID: "TEAMX")
        let idA = DeviceIdentity.deviceID(profile: phone, app: appA)
        var shared = TokenStorage()
        shared.storeAuthentication(
            requestor: "ProgrammerA", mvpd: "MVPD1",
            authnToken: AuthNToken.fixture(requestor: "ProgrammerA", deviceID: idA).signedString, userMeta: nil
        )
        // App A keeps its token; app B's launch removes it
        #expect(TokenSanitizer.sanitize(&shared, deviceID: idA).isEmpty)
        let removed = TokenSanitizer.sanitize(&shared, deviceID: DeviceIdentity.deviceID(profile: phone, app: appB))
        #expect(removed.map(\.requestorID) == ["ProgrammerA"])
        #expect(shared.authnTokens.isEmpty)
    }
}
