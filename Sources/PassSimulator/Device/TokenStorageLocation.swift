import AccessEnabler
import Foundation
import PassStorage

/// Where an app's SDK keeps its tokens on a simulated device, by platform and OS version (seed 002 "Persistence",
/// seed 003, spec §8.1):
///
/// | device | storage | shared with |
/// | --- | --- | --- |
/// | iOS 6 and earlier | the device's one named pasteboard, `DIR/shared/all-apps/` | every app, whatever its team |
/// | iOS 7 and later | the team's pasteboard, `DIR/shared/<teamID>/` | the apps of the same team |
/// | tvOS | the app's user defaults, `DIR/apps/<bundleID>/` | nobody |
///
/// With the device ID of ``DeviceIdentity`` (the MAC address up to iOS 6, the vendor ID from iOS 7) this gives the
/// tech note's rows: on iOS 6 SSO works between any apps; from iOS 7 only within a team and a bundle-ID prefix.
public enum TokenStorageLocation {
    /// Which storage an app uses.
    public enum Scope: Sendable, Equatable, CustomStringConvertible {
        /// The device's one pasteboard (iOS 6 and earlier).
        case device
        /// The team's pasteboard (iOS 7+).
        case team(String)
        /// The app's private storage (tvOS).
        case app(String)

        /// `every app`, `team TEAM1234`, `app com.example.tv` (the SDK's storage-domain name in events).
        public var description: String {
            switch self {
            case .device: "every app"
            case .team(let id): "team \(id)"
            case .app(let id): "app \(id)"
            }
        }
    }

    /// The first iOS version whose named pasteboards are private to a team (seed 003, iOS 7 release notes).
    public static let firstTeamPasteboardVersion = 7
    /// The owner folder of the device-wide pasteboard under `DIR/shared/`. Lowercase with a hyphen: no Apple team ID
    /// (ten uppercase letters and digits) can be named so.
    public static let everyAppOwner = "all-apps"

    /// Which storage `app` uses on `profile`.
    public static func scope(profile: DeviceProfile, app: AppIdentity) -> Scope {
        switch app.platform {
        case .tvOS: return .app(app.bundleID)
        case .iOS:
            return profile.platform == .iOS && profile.majorOSVersion < firstTeamPasteboardVersion ? .device : .team(app.teamID)
        }
    }

    /// The storage file of `scope` in `folder`.
    public static func file(_ scope: Scope, in folder: DeviceFolder) throws(StorageError) -> StorageFile {
        switch scope {
        case .device: try folder.teamShared(teamID: everyAppOwner)
        case .team(let id): try folder.teamShared(teamID: id)
        case .app(let id): try folder.appPrivate(bundleID: id)
        }
    }

    /// The storage `app` uses on `profile`, ready to open.
    ///
    /// A team's pasteboard opened for the first time on iOS 7 or later, on a device whose iOS 6 pasteboard holds tokens,
    /// starts as a copy of it: the upgraded OS hands the existing named pasteboard to the app that opens it (seed 002:
    /// after an iOS 6 → 7 upgrade the tokens are still there, bound to the old device ID, for the sanitizer to clear).
    public static func open(profile: DeviceProfile, app: AppIdentity, in folder: DeviceFolder) throws
        -> (file: StorageFile, scope: Scope)
    {
        let scope = scope(profile: profile, app: app)
        let file = try file(scope, in: folder)
        if case .team = scope, !FileManager.default.fileExists(atPath: file.url.deletingLastPathComponent().path(percentEncoded: false)),
            let old = try self.file(.device, in: folder).read()
        {
            _ = try file.update { current in current ?? old }
        }
        return (file, scope)
    }
}
