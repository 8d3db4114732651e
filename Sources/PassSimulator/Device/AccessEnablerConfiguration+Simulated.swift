import AccessEnabler
import Foundation
import PassStorage

extension AccessEnablerConfiguration {
    /// The configuration of an app on a simulated device folder (what `passconsole flow --device DIR` uses).
    ///
    /// Loads or makes the device's hardware profile, computes the device ID the way the platform does
    /// (``DeviceIdentity``), and picks the storage: the team's shared file on iOS, the app's private file on tvOS.
    /// Older storage generations are read from `DIR/legacy/storage-v2.json` and `storage-v1.json`; the importer's
    /// "previously imported" marker lives in the app's private folder. The device's Apple TV Provider
    /// (``SimulatedPlatformServices`` reading its ``TVProviderSetting``) is installed for every app, so the Apple
    /// dialog appears whenever the requestor has an MVPD with Apple SSO, whatever the app wires.
    ///
    /// - Parameter osVersion: the device's OS version; a new value updates the stored profile (an OS upgrade).
    /// - Throws: ``PassStorage/StorageError`` or ``DeviceProfile/LoadError`` when the folder cannot be used.
    public static func simulated(
        app: AppIdentity, device folder: DeviceFolder, osVersion: String? = nil, serviceProvider: URL
    ) throws -> (configuration: AccessEnablerConfiguration, profile: DeviceProfile) {
        let profile = try DeviceProfile.loadOrCreate(in: folder, platform: app.platform, osVersion: osVersion)
        let storage: StorageFile
        let domain: String
        switch app.platform {
        case .iOS:
            storage = try folder.teamShared(teamID: app.teamID)
            domain = "team \(app.teamID)"
        case .tvOS:
            storage = try folder.appPrivate(bundleID: app.bundleID)
            domain = "app \(app.bundleID)"
        }
        var configuration = AccessEnablerConfiguration(
            app: app, deviceID: DeviceIdentity.deviceID(profile: profile, app: app), storage: storage, storageDomain: domain,
            defaultServiceProvider: serviceProvider)
        configuration.legacyStorage = [try folder.legacy("storage-v2.json"), try folder.legacy("storage-v1.json")]
        configuration.importMarker = try folder.appPrivate(bundleID: app.bundleID, name: "importer.json")
        var origin = URLComponents()
        let parts = URLComponents(url: serviceProvider, resolvingAgainstBaseURL: false)
        origin.scheme = parts?.scheme
        origin.host = parts?.host
        origin.port = parts?.port
        if let backend = origin.url {
            configuration.platformServices = SimulatedPlatformServices(backend: backend, device: folder, platform: app.platform)
        }
        return (configuration, profile)
    }
}
