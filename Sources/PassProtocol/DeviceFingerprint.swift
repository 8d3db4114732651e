import Crypto
import Foundation

/// Binds tokens to a device: the value the backend writes into `simpleTokenFingerprint`.
///
/// Adobe signs the device ID with its private key (seed 002 §Device Binding) and never published how
/// (spec §10 open question 5). PassConsole uses a salted SHA-256 instead, so the SDK can recompute it from
/// its own device ID and notice locally that a stored token belongs to another device (the token
/// sanitizer and `SEC412`, spec §8.7). The signature over the whole token keeps it from being altered.
public enum DeviceFingerprint: Sendable {
    /// The salt prefixed to the device ID before hashing.
    public static let salt = "passconsole-device:"

    /// The fingerprint for `deviceID`: lowercase hex SHA-256 of `"passconsole-device:" + deviceID`.
    ///
    /// The last device's fingerprint is kept: an app checks its tokens against its one device ID on every call.
    public static func make(deviceID: String) -> String {
        last.value(for: deviceID) { SHA256.hash(data: Data((salt + $0).utf8)).hexString }
    }

    private static let last = LastValueCache<String, String>()
}

extension AuthNToken {
    /// Whether this token was issued to the device with `deviceID`.
    public func matches(deviceID: String) -> Bool {
        deviceFingerprint == DeviceFingerprint.make(deviceID: deviceID)
    }
}

extension AuthZToken {
    /// Whether this token was issued to the device with `deviceID`.
    public func matches(deviceID: String) -> Bool {
        deviceFingerprint == DeviceFingerprint.make(deviceID: deviceID)
    }
}

