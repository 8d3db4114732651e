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
    public static func make(deviceID: String) -> String {
        SHA256.hash(data: Data((salt + deviceID).utf8))
            .map { byte in String(byte, radix: 16).leftPadded(to: 2) }
            .joined()
    }
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

extension String {
    /// The string with leading zeros added up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
