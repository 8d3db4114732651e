import Testing

@testable import PassProtocol

struct DeviceFingerprintTests {
    // Expected values computed independently: `printf %s "passconsole-device:<id>" | sha256sum`.

    @Test func isLowercaseHexSHA256OfTheSaltedDeviceID() {
        #expect(
            DeviceFingerprint.make(deviceID: "device-A")
                == "a8ab03beb08c8084d36249cb6186e323b6e042fd1f5dc949ed8b9e8f7a5e0e08"
        )
    }

    @Test func emptyDeviceIDHashesTheSaltAlone() {
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
