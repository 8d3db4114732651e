import Foundation
import PassProtocol
import PassStorage

/// Everything an ``AccessEnabler`` needs to know about the app and the device it runs on.
public struct AccessEnablerConfiguration: Sendable {
    /// The app (bundle ID, team, platform).
    public var app: AppIdentity
    /// The device ID sent to the backend and bound into tokens (the platform's: the vendor identifier, or the Wi-Fi MAC address before iOS 7; `PassSimulator`'s
    /// `DeviceIdentity` computes it for a simulated device).
    public var deviceID: String
    /// Where the tokens live: the team's shared file on iOS, the app's private file on tvOS.
    public var storage: StorageFile
    /// A name for ``storage`` in events and the console (`team TEAM1234`, `app com.example.tv`).
    public var storageDomain: String
    /// Older storage generations the token importer reads (newest first): JSON ``LegacyTokenStorage`` documents.
    public var legacyStorage: [StorageFile] = []
    /// Where the app remembers which storage version the importer last ran for (spec §8.6 `previouslyImported`);
    /// `nil`: the importer may run at every `setRequestor`.
    public var importMarker: StorageFile?
    /// The default service provider base (`…/adobe-services`) when `setRequestor` names none.
    public var defaultServiceProvider: URL
    /// The redirect URL login and logout web flows end at.
    public var redirectURL: String = PassConstants.ADOBEPASS_REDIRECT_URL
    /// The app's custom-scheme URL a login or logout shown in SFSafariViewController ends at (the 3.x header's
    /// `svcRedirectURL`, cookbook step 5: `adbe.<id>://adobe.com`), used for MVPDs that require SFSafariViewController
    /// (`useSVC`); `handleExternalURL` refuses another URL for such a login. Default: ``PassConstants/svcRedirectURL(appID:)``
    /// of the bundle ID; the app registers the scheme.
    public var svcRedirectURL: String
    /// Client information (spec §5.7) sent as `X-Device-Info` unless `setOptions` replaces it.
    public var deviceInfo: DeviceInfo?
    /// tvOS second screen: how often to poll for the sign-in (default 10 s).
    public var pollInterval: Duration = .seconds(PassConstants.CLIENTLESS_POLL_TIMER_INTERVAL)
    /// tvOS second screen: the registration code lifetime to ask for (seconds).
    public var regcodeTTL: Int = PassConstants.CLIENTLESS_REGCODE_TTL
    /// The platform's single sign-on (Apple TV Provider); `nil` when the app does not offer it.
    public var platformServices: (any PlatformServices)?
    /// HTTP timeout per request (seconds).
    public var requestTimeout: TimeInterval = 20
    /// The AccessEnabler release whose storage rules this app follows (``SDKRelease``; the token sanitizer differs).
    public var sdkRelease: SDKRelease = .current
    /// Device IDs this device computed before the current one (the MAC-based ID of iOS 6 and earlier): the 1.7
    /// sanitizer removes tokens bound to them.
    public var formerDeviceIDs: Set<String> = []
    /// Which failed calls are sent again and how often: `HTTP_RETRY_LIMIT` retries of a connection failure or a
    /// `502`/`503`/`504` (``RetryPolicy``).
    public var retry = RetryPolicy()
    /// How long a storage change may wait for the disk while the call that made it still runs (it lands at once when
    /// the call ends). AccessEnablers on one storage file share its writer: the first one's value counts.
    public var storageWriteDeadline: Duration = .milliseconds(50)
    /// Which protocol the SDK speaks: the seeds' (`/adobe-services`, REST v1 for the tvOS code) or REST API v2
    /// (``EntitlementProtocol/restV2``). The API and its callbacks stay the same; on v2 ``storage``, ``storageDomain``,
    /// ``legacyStorage``, ``importMarker``, ``sdkRelease``, ``formerDeviceIDs`` and ``regcodeTTL`` are not used.
    public var `protocol`: EntitlementProtocol = .sdk
    /// REST API v2: the registered app's software statement (dynamic client registration, rest-api-v2.md §7.1).
    /// Without one, `setRequestor` reports `R400` and `setRequestorComplete(0)`.
    public var softwareStatement: String?
    /// REST API v2: where the client credentials, the access token, the device identifier, the chosen MVPDs and the
    /// profile copies are kept (``V2State``, JSON): the app's private storage. `nil`: in memory only (a relaunch
    /// registers again, and the service no longer knows the old client's profiles).
    public var registrationStorage: StorageFile?
    /// The clock tokens are judged by (tests move it).
    public var now: @Sendable () -> Date = { Date() }

    /// Creates a configuration.
    public init(
        app: AppIdentity, deviceID: String, storage: StorageFile, storageDomain: String, defaultServiceProvider: URL
    ) {
        self.app = app
        self.deviceID = deviceID
        self.storage = storage
        self.storageDomain = storageDomain
        self.defaultServiceProvider = defaultServiceProvider
        self.svcRedirectURL = PassConstants.svcRedirectURL(appID: app.bundleID)
    }
}
