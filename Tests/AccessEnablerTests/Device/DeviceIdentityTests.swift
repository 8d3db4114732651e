import AccessEnabler
import Foundation
import PassSimulator
import Testing

/// The device-ID rules of the SSO tech note (seed 003): the four combinations, iOS 6, and the 6 → 7 upgrade.
struct DeviceIdentityTests {
    let phone = DeviceProfile.fixture()
    let appA = AppIdentity(bundleID: "com.x.y.AppA", teamID: "TEAMX")

    private func deviceID(_ app: AppIdentity, on profile: DeviceProfile? = nil) -> String {
        DeviceIdentity.deviceID(profile: profile ?? phone, app: app)
    }

    @Test func theDeviceIDIs64LowercaseHexCharacters() {
        #expect(deviceID(appA).wholeMatch(of: /[0-9a-f]{64}/) != nil)
        #expect(deviceID(appA, on: .fixture(osVersion: "6.1")).wholeMatch(of: /[0-9a-f]{64}/) != nil)
    }

    @Test func sameTeamAndSameBundlePrefixGiveTheSameDeviceID() {
        // Seed 003, case 1: com.x.y.AppA and com.x.y.AppB share storage and IDFV, so SSO works
        let appB = AppIdentity(bundleID: "com.x.y.AppB", teamID: "TEAMX")
        #expect(
            DeviceIdentity.vendorID(profile: phone, app: appA) == DeviceIdentity.vendorID(profile: phone, app: appB))
        #expect(deviceID(appA) == deviceID(appB))
        #expect(DeviceIdentity.source(profile: phone, app: appB) == .vendorID(bundlePrefix: "com.x.y"))
    }

    @Test func sameTeamWithAnotherBundlePrefixGivesAnotherDeviceID() {
        // Seed 003, case 2: com.z.AppB shares the team's storage but not the IDFV
        let appB = AppIdentity(bundleID: "com.z.AppB", teamID: "TEAMX")
        #expect(
            DeviceIdentity.vendorID(profile: phone, app: appA) != DeviceIdentity.vendorID(profile: phone, app: appB))
        #expect(deviceID(appA) != deviceID(appB))
    }

    @Test func anotherTeamGivesAnotherDeviceIDWhateverTheBundleID() {
        // Seed 003, case 3: bundle IDs do not matter across teams
        let sameName = AppIdentity(bundleID: "com.x.y.AppB", teamID: "TEAMY")
        #expect(deviceID(appA) != deviceID(sameName))
    }

    @Test func theVendorIDIsAStableUppercaseUUIDPerDevice() throws {
        let idfv = DeviceIdentity.vendorID(profile: phone, app: appA)
        #expect(try #require(UUID(uuidString: idfv)).uuidString == idfv)
        #expect(DeviceIdentity.vendorID(profile: phone, app: appA) == idfv)
        let otherPhone = DeviceProfile.fixture(vendorSeed: String(repeating: "07", count: 32))
        #expect(DeviceIdentity.vendorID(profile: otherPhone, app: appA) != idfv)
    }

    @Test func onIOS6EveryAppComputesTheMACBasedID() {
        // Seed 003: "iOS 6 and below: SSO works automatically between apps of the same or other teams"
        let ios6 = DeviceProfile.fixture(osVersion: "6.1.4")
        let apps = [
            appA, AppIdentity(bundleID: "com.z.AppB", teamID: "TEAMX"),
            AppIdentity(bundleID: "org.other", teamID: "T2"),
        ]
        let ids = Set(apps.map { deviceID($0, on: ios6) })
        #expect(ids.count == 1)
        // SHA-256 of "a4:83:e7:12:34:56" (sha256sum)
        #expect(ids.first == "45a769a652fc612de89dea0ece9805fb00863030d9407ab89bd797a0b88c9e47")
        #expect(DeviceIdentity.source(profile: ios6, app: appA) == .hardwareAddress)
    }

    @Test func upgradingFromIOS6ToIOS7ChangesTheDeviceID() {
        var device = DeviceProfile.fixture(osVersion: "6.1.4")
        let before = deviceID(appA, on: device)
        device.osVersion = "7.0"
        #expect(DeviceIdentity.source(profile: device, app: appA) == .vendorID(bundlePrefix: "com.x.y"))
        #expect(deviceID(appA, on: device) != before)
        #expect(deviceID(appA, on: device) == deviceID(appA, on: .fixture(osVersion: "17.2")))
    }

    @Test func tvOSAlwaysUsesTheVendorID() {
        let tv = DeviceProfile(
            hardwareAddress: "f0:18:98:00:00:01", model: "AppleTV14,1", osVersion: "6.0", vendorSeed: phone.vendorSeed,
            advertisingID: phone.advertisingID
        )
        let app = AppIdentity(bundleID: "com.x.y.TV", teamID: "TEAMX", platform: .tvOS)
        #expect(DeviceIdentity.source(profile: tv, app: app) == .vendorID(bundlePrefix: "com.x.y"))
    }

    @Test func aOneComponentBundleIDIsItsOwnPrefix() {
        let single = AppIdentity(bundleID: "Player", teamID: "TEAMX")
        #expect(DeviceIdentity.source(profile: phone, app: single) == .vendorID(bundlePrefix: "Player"))
        #expect(deviceID(single) != deviceID(AppIdentity(bundleID: "Other", teamID: "TEAMX")))
    }
}
