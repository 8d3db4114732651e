import Crypto
import Foundation
import Testing

@testable import PassProtocol

struct DeviceFingerprintTests {
    @Test func isLowercaseHexSHA256OfTheSaltedDeviceID() {
        let expected = SHA256.hash(data: Data("passconsole-device:device-A".utf8))
            .map { String(format: "%02x", $0) }.joined()
        let fingerprint = DeviceFingerprint.make(deviceID: "device-A")
        #expect(fingerprint == expected)
        #expect(fingerprint.count == 64)
        #expect(fingerprint == fingerprint.lowercased())
    }

    @Test func knownVectorForTheEmptyDeviceID() {
        // sha256("passconsole-device:"), computed independently with coreutils.
        #expect(
            DeviceFingerprint.make(deviceID: "")
                == "20c695e13130877c711a84a9356ab6758f67ddf012aa2e350548060f885f7503"
        )
    }

    @Test func tokensMatchOnlyTheDeviceTheyWereIssuedTo() {
        #expect(AuthNToken.fixture(deviceID: "device-A").matches(deviceID: "device-A"))
        #expect(!AuthNToken.fixture(deviceID: "device-A").matches(deviceID: "device-B"))
        #expect(AuthZToken.fixture(deviceID: "device-B").matches(deviceID: "device-B"))
        #expect(!AuthZToken.fixture(deviceID: "device-B").matches(deviceID: "device-A"))
    }
}
