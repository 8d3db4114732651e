import Foundation

@testable import PassProtocol

/// Token fixtures with sensible defaults; dates are whole seconds/milliseconds so round trips compare equal.
extension AuthNToken {
    static func fixture(
        deviceID: String = "device-A",
        expires: Date = Date(timeIntervalSince1970: 1_900_000_000),
        authorizedResources: [String] = []
    ) -> AuthNToken {
        AuthNToken(
            guid: "71C69B91-F327-F185-F29E-2CE20DC560F5",
            requestorID: "REF30",
            expires: expires,
            mvpdID: "Cablevision",
            deviceFingerprint: DeviceFingerprint.make(deviceID: deviceID),
            samlNameID: "name<id>&1",
            samlSessionIndex: "s-42",
            authorizedResources: authorizedResources
        )
    }
}

extension AuthZToken {
    static func fixture(deviceID: String = "device-A", resourceID: String = "bravo") -> AuthZToken {
        AuthZToken(
            requestorID: "REF30",
            resourceID: resourceID,
            expires: Date(timeIntervalSince1970: 1_900_000_000),
            mvpdID: "Cablevision",
            deviceFingerprint: DeviceFingerprint.make(deviceID: deviceID)
        )
    }
}

extension MediaToken {
    /// Issued at 2030-01-01T00:00:00.123Z, valid 7 minutes.
    static let issueTime = EpochMilliseconds.date(1_893_456_000_123)

    static func fixture(resourceID: String = "bravo", proxyMvpdID: String = "") -> MediaToken {
        MediaToken(
            sessionGUID: "71C69B91-F327-F185-F29E-2CE20DC560F5",
            requestorID: "REF30",
            resourceID: resourceID,
            ttlMilliseconds: 420_000,
            issueTime: issueTime,
            mvpdID: "Cablevision",
            proxyMvpdID: proxyMvpdID
        )
    }
}

enum TestKeys {
    /// One fixed signing key for the whole suite, so failures are reproducible.
    static let signing = try! TokenSigningKey(rawRepresentation: Data(repeating: 0x2A, count: 32))
    static let other = try! TokenSigningKey(rawRepresentation: Data(repeating: 0x17, count: 32))
}
