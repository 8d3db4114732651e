import AccessEnabler
import Foundation

/// The hardware profile of a simulated device: what the real SDK would read from `UIDevice` and the network stack.
///
/// Stored once per device as `DIR/device.json` (see `loadOrCreate(in:platform:osVersion:)`), so every app "installed"
/// in the same device folder sees the same hardware. ``DeviceIdentity`` turns it into the device ID the backend binds
/// tokens to: the Wi-Fi MAC address before iOS 7, the vendor identifier from iOS 7 and on tvOS (seed 003).
///
/// ```swift
/// let phone = DeviceProfile.generate(platform: .iOS, osVersion: "6.1.4")
/// phone.model          // "iPhone5,2"
/// phone.majorOSVersion // 6
/// ```
///
/// - Warning: ``vendorSeed`` is the device's secret: whoever knows it can compute every vendor ID of the device.
public struct DeviceProfile: Codable, Sendable, Equatable {
    /// The Wi-Fi MAC address, lowercase, colon-separated (`a4:83:e7:12:34:56`). The device ID up to iOS 6.
    public var hardwareAddress: String
    /// The model identifier (`iPhone15,2`, `AppleTV14,1`); an `AppleTV` model makes the device a tvOS device.
    public var model: String
    /// The OS version (`17.2`, `6.1.4`); changing it simulates an OS upgrade.
    public var osVersion: String
    /// A random secret of this device (64 hex characters) from which vendor IDs are derived.
    public var vendorSeed: String
    /// The advertising identifier (IDFA), an uppercase UUID. Sent as tracking data, never used as the device ID.
    public var advertisingID: String

    /// Creates a profile from its parts; prefer ``generate(platform:osVersion:)``.
    public init(hardwareAddress: String, model: String, osVersion: String, vendorSeed: String, advertisingID: String) {
        self.hardwareAddress = hardwareAddress
        self.model = model
        self.osVersion = osVersion
        self.vendorSeed = vendorSeed
        self.advertisingID = advertisingID
    }

    /// The platform the model belongs to: ``Platform/tvOS`` for `AppleTV…` models, ``Platform/iOS`` otherwise.
    public var platform: Platform {
        model.hasPrefix("AppleTV") ? .tvOS : .iOS
    }

    /// The major OS version (`6` for `6.1.4`); `0` when the version does not start with a number.
    public var majorOSVersion: Int {
        Int(osVersion.prefix { $0.isNumber }) ?? 0
    }
}

// MARK: - Generating

extension DeviceProfile {
    /// The OS version a new device gets when none is asked for.
    public static let defaultOSVersion = "17.2"

    /// Makes a new random device with realistic values.
    ///
    /// The MAC address starts with one of Apple's organisationally unique identifiers, the model is one that runs
    /// the requested OS version (an `iPhone5,2` for iOS 6, an `iPhone15,2` for iOS 17), and the vendor seed and
    /// advertising ID are fresh random values.
    ///
    /// - Parameters:
    ///   - platform: iOS (an iPhone) or tvOS (an Apple TV).
    ///   - osVersion: The OS version, e.g. `"6.1.4"`; ``defaultOSVersion`` when `nil`.
    public static func generate(platform: Platform, osVersion: String?) -> DeviceProfile {
        var generator = SystemRandomNumberGenerator()
        return generate(platform: platform, osVersion: osVersion, using: &generator)
    }

    /// Makes a new device from `generator`; a seeded generator gives a reproducible device (tests, demos).
    public static func generate(
        platform: Platform, osVersion: String?, using generator: inout some RandomNumberGenerator
    ) -> DeviceProfile {
        let version = osVersion ?? defaultOSVersion
        let major = Int(version.prefix { $0.isNumber }) ?? 0
        let oui = appleOUIs.randomElement(using: &generator)!
        let nic = (0..<3).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let seed = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let idfa = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return DeviceProfile(
            hardwareAddress: (oui + nic).map { IdentifierFormat.hex([$0]) }.joined(separator: ":"),
            model: model(for: platform, majorOSVersion: major),
            osVersion: version,
            vendorSeed: IdentifierFormat.hex(seed),
            advertisingID: IdentifierFormat.uuid(fromRandom: idfa)
        )
    }

    /// A model identifier that shipped with, or was updated to, the given OS version.
    static func model(for platform: Platform, majorOSVersion major: Int) -> String {
        switch platform {
        case .tvOS:
            return major >= 16 ? "AppleTV14,1" : major >= 11 ? "AppleTV6,2" : "AppleTV5,3"
        case .iOS:
            switch major {
            case ..<7: return "iPhone5,2"  // iPhone 5, shipped with iOS 6
            case 7..<10: return "iPhone6,1"
            case 10..<13: return "iPhone10,3"
            case 13..<16: return "iPhone13,2"
            default: return "iPhone15,2"
            }
        }
    }

    /// Prefixes (OUIs) Apple registered for its devices' network interfaces.
    static let appleOUIs: [[UInt8]] = [
        [0xA4, 0x83, 0xE7], [0xF0, 0x18, 0x98], [0x3C, 0x22, 0xFB], [0xAC, 0xBC, 0x32], [0x88, 0x66, 0xA5],
        [0x28, 0xCF, 0xE9], [0x70, 0x3E, 0xAC], [0xD0, 0x81, 0x7A],
    ]
}

// MARK: - Formatting helpers

/// Formats bytes as the identifiers a device shows: lowercase hex, and uppercase UUIDs like IDFA and IDFV.
enum IdentifierFormat {
    /// The bytes as lowercase hex, two digits each.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    /// The first 16 bytes as a version-4 UUID string: the version and variant bits are set as RFC 4122 requires.
    static func uuid(fromRandom bytes: some Sequence<UInt8>) -> String {
        var b = Array(bytes.prefix(16))
        precondition(b.count == 16, "a UUID needs 16 bytes")
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        let uuid = UUID(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
        return uuid.uuidString
    }
}
