import AccessEnabler
import Foundation
import MicroHTTP
import PassSimulator

/// `POST /api/devices/whatif`: the device ID an app not installed yet would compute, and how it would share sign-ins
/// with the apps on the device — for each row of the SSO tech note (seed 003): its team and bundle ID, its
/// AccessEnabler release (1.7 or 1.8+), and the device's iOS version (6 and earlier, 7+, or an upgrade, e.g. to 10,
/// which erases the pasteboard).
enum WhatIf {
    struct Body: Decodable {
        var bundleID: String
        var teamID: String
        var platform: String?
        /// The OS version to judge on; the device's own when absent. Another version than the device's is an upgrade.
        var osVersion: String?
        /// `1.7` or `1.8` (the default: this SDK's rules).
        var sdkRelease: String?
    }

    struct Answer: Encodable {
        var deviceID: String
        var algorithm: String
        /// The storage the app's SDK would open (`team TEAM1234`, `every app`, `app com.example.tv`).
        var storage: String
        var osVersion: String?
        var sdkRelease: String
        /// What moving the device from its OS version to `osVersion` does to every sign-in, when it is an upgrade that
        /// does something (iOS 7: new device IDs; iOS 10: the pasteboard erased).
        var upgrade: String?
        var relations: [DeviceReport.Relation]
    }

    /// The longest OS version accepted (`17.2.1`).
    static let maxVersionLength = 12

    static func answer(_ body: Body, devices: [ConsoleDevice], apps: [KnownApp]) throws(HTTPError) -> Answer {
        guard !body.bundleID.isEmpty, !body.teamID.isEmpty else {
            throw HTTPError(.badRequest, code: "missing_argument", message: "Give a bundle ID and a team ID.")
        }
        guard let platform = Platform(rawValue: (body.platform ?? "ios").lowercased()) else {
            throw HTTPError(.badRequest, code: "unknown_platform", message: "platform must be ios or tvos.")
        }
        guard let release = body.sdkRelease.map({ SDKRelease(rawValue: $0) }) ?? SDKRelease.current else {
            throw HTTPError(.badRequest, code: "unknown_sdk_release",
                message: "sdkRelease must be one of \(SDKRelease.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        if let version = body.osVersion { try check(version) }
        let candidate = AppIdentity(bundleID: body.bundleID, teamID: body.teamID, platform: platform)
        let found = devices.lazy.compactMap { device -> (ConsoleDevice, DeviceProfile)? in
            guard let data = try? device.folder.deviceProfile.read(),
                let profile = try? JSONDecoder().decode(DeviceProfile.self, from: data), profile.platform == platform
            else { return nil }
            return (device, profile)
        }.first
        let device = found?.0
        var profile = found?.1
        var upgrade: String?
        if let version = body.osVersion {
            if let current = profile {
                upgrade = OSUpgrade(platform: platform, from: current.osVersion, to: version).explanation
            } else if platform == .iOS {
                profile = DeviceReport.currentPhone
            }
            profile?.osVersion = version
        }
        let row = DeviceReport.describe(
            KnownApp(
                identity: candidate,
                deviceID: profile.map { DeviceIdentity.deviceID(profile: $0, app: candidate) }
                    ?? "(no \(platform.rawValue) device profile yet)",
                device: device?.name),
            profile: profile)
        let relations = apps.filter { $0.identity.bundleID != candidate.bundleID }.map { other in
            DeviceReport.relation(
                candidate, other.identity, devices: (device?.name, other.device), profile: profile,
                releases: (release, other.sdkRelease ?? .current))
        }
        let storage = profile.map { TokenStorageLocation.scope(profile: $0, app: candidate).description }
            ?? (platform == .iOS ? "team \(candidate.teamID)" : "app \(candidate.bundleID)")
        return Answer(
            deviceID: row.deviceID, algorithm: row.algorithm, storage: storage, osVersion: profile?.osVersion,
            sdkRelease: release.rawValue, upgrade: upgrade, relations: relations)
    }

    /// An OS version is digits and dots, starting with a major version from 1 to 99.
    static func check(_ version: String) throws(HTTPError) {
        let major = Int(version.prefix { $0.isNumber })
        guard version.count <= maxVersionLength, version.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let major, (1...99).contains(major)
        else {
            throw HTTPError(.badRequest, code: "invalid_os_version",
                message: "osVersion must be a version such as 6.1.4 or 17.2 (major version 1 to 99).")
        }
    }
}
