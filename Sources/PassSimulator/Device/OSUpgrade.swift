import AccessEnabler
import Foundation
import PassStorage

/// What upgrading a simulated device's OS does to its apps' sign-ins (seed 002, seed 003, spec §8.1).
///
/// - Across iOS 7: the device ID changes from the MAC address to the vendor ID (``DeviceIdentity``) and pasteboards
///   become private to a team (``TokenStorageLocation``); the tokens stay, bound to the old ID, and the token sanitizer
///   clears them at the next `setRequestor` (`SEC412`): every app signs in again.
/// - Across iOS 10: "when upgrading from a previous version of iOS, the pasteboard will be erased. This means that all
///   applications need to be re-authenticated" (seed 002, iOS 10 Pasteboard Changes). ``apply(to:)`` erases every
///   pasteboard of the device (the teams' and the device-wide one); apps' private storage (tvOS) is not a pasteboard.
///
/// ```swift
/// OSUpgrade(platform: .iOS, from: "9.3", to: "10.0").erasesPasteboards  // true
/// OSUpgrade(platform: .iOS, from: "6.1.4", to: "7.0").changesDeviceID   // true
/// ```
public struct OSUpgrade: Sendable, Equatable {
    public var platform: Platform
    public var from: String
    public var to: String

    /// The iOS version whose upgrade erases the pasteboard.
    public static let pasteboardErasingVersion = 10

    /// Creates the upgrade of a `platform` device from version `from` to `to`.
    public init(platform: Platform, from: String, to: String) {
        self.platform = platform
        self.from = from
        self.to = to
    }

    private static func major(_ version: String) -> Int { Int(version.prefix { $0.isNumber }) ?? 0 }

    /// Whether the upgrade crosses into iOS 10, which erases the pasteboards.
    public var erasesPasteboards: Bool {
        platform == .iOS && Self.major(from) < Self.pasteboardErasingVersion && Self.major(to) >= Self.pasteboardErasingVersion
    }

    /// Whether the upgrade crosses into iOS 7, which changes the device ID every app computes.
    public var changesDeviceID: Bool {
        platform == .iOS && Self.major(from) < DeviceIdentity.firstVendorIDVersion
            && Self.major(to) >= DeviceIdentity.firstVendorIDVersion
    }

    /// What it does to sign-ins, in a sentence; `nil` when nothing.
    public var explanation: String? {
        var parts: [String] = []
        if changesDeviceID {
            parts.append(
                "iOS \(from) → \(to) changes the device ID from the Wi-Fi MAC address to the vendor ID and makes pasteboards "
                    + "private to each team: the token sanitizer clears the old tokens (SEC412), so every app signs in again, "
                    + "and single sign-on then needs the same team and bundle-ID prefix")
        }
        if erasesPasteboards {
            parts.append("iOS \(from) → \(to) erases the pasteboard: every app signs in again")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ") + "."
    }

    /// Applies the upgrade's storage effects to `folder`: erases every pasteboard document when ``erasesPasteboards``.
    ///
    /// - Returns: The documents erased.
    @discardableResult
    public func apply(to folder: DeviceFolder) throws -> [StorageFile] {
        guard erasesPasteboards else { return [] }
        let pasteboards = try folder.files().filter { $0.kind == .team }.map(\.file)
        for file in pasteboards { try file.remove() }
        return pasteboards
    }
}
