import AccessEnabler
import Foundation
import PassStorage

extension DeviceProfile {
    /// Why a device profile could not be loaded.
    public struct LoadError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What was wrong, naming the file.
        public var description: String
    }

    /// Loads the device's profile from `DIR/device.json`, creating it on first use.
    ///
    /// - The first call on a device folder generates a profile (``generate(platform:osVersion:)``) and saves it.
    /// - Later calls read it back, so every app of the device sees the same hardware.
    /// - An explicit `osVersion` different from the stored one updates and saves it: this is how a test upgrades a
    ///   phone from iOS 6 to iOS 7. The upgrade's storage effects follow (``OSUpgrade/apply(to:)``: crossing into
    ///   iOS 10 erases the pasteboards). `nil` keeps the stored version.
    ///
    /// Runs under the file's inter-process lock, so two apps starting at once on a new device agree on one profile.
    ///
    /// ```swift
    /// let phone = DeviceFolder(root: URL(filePath: "/tmp/phone"))
    /// _ = try DeviceProfile.loadOrCreate(in: phone, platform: .iOS, osVersion: "6.1")
    /// let upgraded = try DeviceProfile.loadOrCreate(in: phone, platform: .iOS, osVersion: "7.0")
    /// ```
    ///
    /// - Parameters:
    ///   - folder: The simulated device.
    ///   - platform: The platform of a new device; must match a stored one.
    ///   - osVersion: The OS version to run, or `nil` for the stored one (``defaultOSVersion`` for a new device).
    /// - Throws: ``LoadError`` when `device.json` is unreadable or describes a device of another platform (an
    ///   Apple TV folder opened as an iPhone); `StorageError` when the file cannot be read or written. The file is
    ///   left as it was.
    public static func loadOrCreate(in folder: DeviceFolder, platform: Platform, osVersion: String?) throws
        -> DeviceProfile
    {
        let file = folder.deviceProfile
        // Fast path without the lock or a write: the usual launch finds the profile as it wants it.
        if let data = try file.read(), let stored = try? JSONDecoder().decode(DeviceProfile.self, from: data),
            stored.platform == platform, osVersion == nil || osVersion == stored.osVersion
        {
            return stored
        }
        var profile: DeviceProfile?
        var upgrade: OSUpgrade?
        try file.update { data in
            var loaded: DeviceProfile
            if let data {
                do {
                    loaded = try JSONDecoder().decode(DeviceProfile.self, from: data)
                } catch {
                    // Never replace an unreadable profile: a new one would change the device ID and the sanitizer
                    // would then wipe every token of the device.
                    throw LoadError(description: "\(file.url.path) is not a device profile: \(error)")
                }
                guard loaded.platform == platform else {
                    throw LoadError(
                        description: "\(file.url.path) describes a \(loaded.platform.clientType) device "
                            + "(\(loaded.model)), not a \(platform.clientType) one"
                    )
                }
                if let osVersion, osVersion != loaded.osVersion {
                    upgrade = OSUpgrade(platform: platform, from: loaded.osVersion, to: osVersion)
                    loaded.osVersion = osVersion
                } else {
                    profile = loaded
                    return data  // another app created it since our read: keep its bytes
                }
            } else {
                loaded = generate(platform: platform, osVersion: osVersion)
            }
            profile = loaded
            return try encoded(loaded)
        }
        guard let profile else { preconditionFailure("update ran its transform without producing a profile") }
        try upgrade?.apply(to: folder)
        return profile
    }

    /// The JSON written to `device.json`: pretty-printed with sorted keys, so it diffs well and reads easily.
    static func encoded(_ profile: DeviceProfile) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(profile)
    }
}
