import AccessEnabler
import Foundation
import PassSimulator
import PassTestSupport
import Testing

struct DeviceProfileTests {
    @Test func aNewIPhoneHasRealisticValues() throws {
        let phone = DeviceProfile.generate(platform: .iOS, osVersion: nil)
        #expect(phone.platform == .iOS)
        #expect(phone.model.hasPrefix("iPhone"))
        #expect(phone.osVersion == DeviceProfile.defaultOSVersion)
        #expect(phone.hardwareAddress.wholeMatch(of: /([0-9a-f]{2}:){5}[0-9a-f]{2}/) != nil)
        #expect(phone.vendorSeed.wholeMatch(of: /[0-9a-f]{64}/) != nil)
        let idfa = try #require(UUID(uuidString: phone.advertisingID))
        #expect(idfa.uuidString == phone.advertisingID)
    }

    @Test func theMACAddressStartsWithAnAppleOUI() {
        let appleOUIs: Set = [
            "a4:83:e7", "f0:18:98", "3c:22:fb", "ac:bc:32", "88:66:a5", "28:cf:e9", "70:3e:ac", "d0:81:7a",
        ]
        for _ in 0..<20 {
            let phone = DeviceProfile.generate(platform: .iOS, osVersion: nil)
            #expect(appleOUIs.contains(String(phone.hardwareAddress.prefix(8))))
        }
    }

    @Test func anAppleTVIsATVOSDevice() {
        let tv = DeviceProfile.generate(platform: .tvOS, osVersion: "17.1")
        #expect(tv.model.hasPrefix("AppleTV"))
        #expect(tv.platform == .tvOS)
        #expect(tv.osVersion == "17.1")
    }

    @Test func theModelFitsTheOSVersion() {
        #expect(DeviceProfile.generate(platform: .iOS, osVersion: "6.1.4").model == "iPhone5,2")
        #expect(DeviceProfile.generate(platform: .iOS, osVersion: "7.0").model == "iPhone6,1")
        #expect(DeviceProfile.generate(platform: .iOS, osVersion: "17.2").model == "iPhone15,2")
    }

    @Test func twoNewDevicesShareNoSecret() {
        let first = DeviceProfile.generate(platform: .iOS, osVersion: nil)
        let second = DeviceProfile.generate(platform: .iOS, osVersion: nil)
        #expect(first.vendorSeed != second.vendorSeed)
        #expect(first.advertisingID != second.advertisingID)
    }

    @Test func aSeededGeneratorMakesTheSameDevice() {
        var first = SeededRandom(seed: 42)
        var second = SeededRandom(seed: 42)
        #expect(
            DeviceProfile.generate(platform: .iOS, osVersion: "7.1", using: &first)
                == DeviceProfile.generate(platform: .iOS, osVersion: "7.1", using: &second)
        )
    }

    @Test(arguments: [("17.2", 17), ("6.1.4", 6), ("7", 7), ("beta", 0)])
    func theMajorVersionIsTheLeadingNumber(version: String, major: Int) {
        #expect(DeviceProfile.fixture(osVersion: version).majorOSVersion == major)
    }

    @Test func theProfileSurvivesAJSONRoundTrip() throws {
        let phone = DeviceProfile.generate(platform: .iOS, osVersion: "6.1")
        let data = try JSONEncoder().encode(phone)
        #expect(try JSONDecoder().decode(DeviceProfile.self, from: data) == phone)
        let keys = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]).keys
        #expect(Set(keys) == ["hardwareAddress", "model", "osVersion", "vendorSeed", "advertisingID"])
    }
}

