import AccessEnabler
import Crypto
import Foundation

/// Computes the device ID the SDK sends as `device_id`, which the backend binds every token to.
///
/// The rules follow the SSO tech note (seed 003) and spec §6.6:
///
/// - iOS 6 and earlier: the SHA-256 of the Wi-Fi MAC address. Every app on the device computes the same ID, so SSO
///   works between all apps.
/// - iOS 7 and later, and tvOS: the SHA-256 of the vendor identifier (IDFV). Only apps of the same team **and** the
///   same bundle-ID prefix (all components but the last) see the same IDFV, so only they compute the same ID.
///
/// The result is always 64 lowercase hex characters, as the real SDK sends. Upgrading a device from iOS 6 to iOS 7
/// changes the source and therefore the ID; the token sanitizer then clears the tokens bound to the old one (§8.7).
///
/// ```swift
/// let appA = AppIdentity(bundleID: "com.x.y.AppA", teamID: "TEAMX")
/// let appB = AppIdentity(bundleID: "com.x.y.AppB", teamID: "TEAMX")
/// DeviceIdentity.deviceID(profile: phone, app: appA) == DeviceIdentity.deviceID(profile: phone, app: appB)  // true
/// ```
public enum DeviceIdentity {
    /// What a device ID was computed from; shown by the console next to the ID.
    public enum Source: Codable, Sendable, Hashable, CustomStringConvertible {
        /// The Wi-Fi MAC address (iOS 6 and earlier): the same for every app on the device.
        case hardwareAddress
        /// The vendor identifier of the apps sharing this bundle-ID prefix (iOS 7+, tvOS).
        case vendorID(bundlePrefix: String)

        /// `hardware address` or `vendor ID (com.x.y)`.
        public var description: String {
            switch self {
            case .hardwareAddress: "hardware address"
            case .vendorID(let prefix): "vendor ID (\(prefix))"
            }
        }
    }

    /// The first iOS major version whose device ID comes from the vendor ID (SDK 1.7.5+ on iOS 7).
    public static let firstVendorIDVersion = 7

    /// Which value the device ID of `app` on `profile` comes from.
    ///
    /// The device decides the platform (``DeviceProfile/platform``): an Apple TV always uses the vendor ID; an iPhone
    /// uses the MAC address below ``firstVendorIDVersion``.
    public static func source(profile: DeviceProfile, app: AppIdentity) -> Source {
        if profile.platform == .iOS, profile.majorOSVersion < firstVendorIDVersion {
            return .hardwareAddress
        }
        return .vendorID(bundlePrefix: app.bundlePrefix)
    }

    /// The device ID of `app` on `profile`: 64 lowercase hex characters (SHA-256).
    ///
    /// - Returns: The SHA-256 of the lowercase MAC address, or of ``vendorID(profile:app:)``, per
    ///   ``source(profile:app:)``.
    public static func deviceID(profile: DeviceProfile, app: AppIdentity) -> String {
        switch source(profile: profile, app: app) {
        case .hardwareAddress: sha256Hex(profile.hardwareAddress.lowercased())
        case .vendorID: sha256Hex(vendorID(profile: profile, app: app))
        }
    }

    /// The device IDs `app` computed on `profile` before the current one: on iOS 7 and later, the MAC-based ID of iOS 6
    /// and earlier (what the 1.7 token sanitizer clears, seed 002); none before iOS 7 and on tvOS.
    public static func formerDeviceIDs(profile: DeviceProfile, app: AppIdentity) -> Set<String> {
        guard profile.platform == .iOS, source(profile: profile, app: app) != .hardwareAddress else { return [] }
        return [sha256Hex(profile.hardwareAddress.lowercased())]
    }

    /// The vendor identifier (IDFV) `app` sees on `profile`: an uppercase UUID such as
    /// `5E2B3A51-0C3D-4E6F-9A1B-2C3D4E5F6A7B`.
    ///
    /// Derived from the device's ``DeviceProfile/vendorSeed``, the app's team and its bundle-ID prefix, so it is stable
    /// for the device, equal for apps that share team and prefix, and unrelated otherwise. Defined on every OS version
    /// (iOS 6 had IDFV too), although below iOS 7 the device ID does not use it.
    public static func vendorID(profile: DeviceProfile, app: AppIdentity) -> String {
        let key = SymmetricKey(data: Data(profile.vendorSeed.utf8))
        // The separator keeps ("AB", "C.D") and ("A", "BC.D") apart.
        let message = Data("idfv\u{0}\(app.teamID)\u{0}\(app.bundlePrefix)".utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: key)
        return IdentifierFormat.uuid(fromRandom: Array(mac))
    }

    /// Lowercase hex SHA-256 of `text`'s UTF-8 bytes.
    static func sha256Hex(_ text: String) -> String {
        IdentifierFormat.hex(SHA256.hash(data: Data(text.utf8)))
    }
}
