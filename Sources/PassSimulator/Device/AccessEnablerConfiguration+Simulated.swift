import AccessEnabler
import Foundation
import PassStorage

extension AccessEnablerConfiguration {
    /// The configuration of an app on a simulated device folder (what `passconsole flow --device DIR` uses).
    ///
    /// Loads or makes the device's hardware profile, computes the device ID the way the platform does
    /// (``DeviceIdentity``), and picks the storage by ``TokenStorageLocation``: the device's one pasteboard on iOS 6 and
    /// earlier, the team's from iOS 7, the app's private file on tvOS. Older storage generations are read from
    /// `DIR/legacy/storage-v2.json` and `storage-v1.json`; the importer's "previously imported" marker and, for REST API
    /// v2, the ``V2State`` (`rest-v2.json`) live in the app's private folder.
    /// The device's Apple TV Provider (``SimulatedPlatformServices`` reading its ``TVProviderSetting``) is installed
    /// for every app, so the Apple dialog appears whenever the requestor has an MVPD with Apple SSO, whatever the app
    /// wires.
    ///
    /// - Parameters:
    ///   - osVersion: the device's OS version; a new value updates the stored profile (an OS upgrade, with its effects
    ///     on the storage: ``OSUpgrade``).
    ///   - sdkRelease: the AccessEnabler release whose storage rules the app follows (``SDKRelease``).
    /// - Throws: ``PassStorage/StorageError`` or ``DeviceProfile/LoadError`` when the folder cannot be used.
    public static func simulated(
        app: AppIdentity, device folder: DeviceFolder, osVersion: String? = nil, sdkRelease: SDKRelease = .current,
        serviceProvider: URL
    ) throws -> (configuration: AccessEnablerConfiguration, profile: DeviceProfile) {
        let profile = try DeviceProfile.loadOrCreate(in: folder, platform: app.platform, osVersion: osVersion)
        let (storage, scope) = try TokenStorageLocation.open(profile: profile, app: app, in: folder)
        var configuration = AccessEnablerConfiguration(
            app: app, deviceID: DeviceIdentity.deviceID(profile: profile, app: app), storage: storage,
            storageDomain: scope.description, defaultServiceProvider: serviceProvider)
        configuration.sdkRelease = sdkRelease
        configuration.formerDeviceIDs = DeviceIdentity.formerDeviceIDs(profile: profile, app: app)
        configuration.legacyStorage = [try folder.legacy("storage-v2.json"), try folder.legacy("storage-v1.json")]
        configuration.importMarker = try folder.appPrivate(bundleID: app.bundleID, name: "importer.json")
        // REST API v2 (when the app sets `protocol = .restV2`): the registration and profile copies, app-private.
        configuration.registrationStorage = try folder.appPrivate(bundleID: app.bundleID, name: "rest-v2.json")
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
