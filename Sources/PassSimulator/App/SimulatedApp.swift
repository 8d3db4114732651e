import AccessEnabler
import Foundation
import Logging
import PassStorage

/// One app on a simulated device: a real ``AccessEnabler`` configured from a device folder, whose delegate plays the
/// app's screen and its user — the provider picker, the MVPD's login page in a ``HeadlessWebView``, the logout chain.
///
/// The console's apps, `passconsole flow` and the benchmarks all drive the SDK through this one type; they differ
/// only in who answers the screens (``Player``) and what they do with the callbacks (`onCallback`).
///
/// ```swift
/// let app = try SimulatedApp(
///     app: AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234", platform: .iOS),
///     device: DeviceFolder(root: deviceURL), serviceProvider: spURL,
///     player: .script(mvpd: "Dish", credentials: .init(username: "carol", password: "carol123")))
/// try await app.enabler.configure("REF30")
/// let token = try await app.enabler.authorization(for: "news")
/// ```
public final class SimulatedApp: Sendable {
    /// Who answers what the app shows.
    public enum Player: Sendable {
        /// A person, later: the picker and the login page stay pending (``pendingProviders``, ``pendingLoginURL``)
        /// until the caller answers (`setSelectedProvider`, ``signIn(username:password:)``). The console's apps.
        case person
        /// A script: picks `mvpd` in the picker and signs in with `credentials` on the login page. A screen the
        /// script has no answer for, and a login page that refuses it, end in `onFailure`; with
        /// `endsLoginOnFailure` the app then also hands the SDK its redirect URL with `error=`, so a waiting async
        /// call throws instead of hanging.
        case script(mvpd: String?, credentials: Credentials?, endsLoginOnFailure: Bool = false)
    }

    /// A user name and password typed on an MVPD's login page.
    public struct Credentials: Sendable, Equatable {
        /// Typed in the page's user field (the first input whose name contains "user").
        public var username: String
        /// Typed in the page's password field.
        public var password: String

        /// Credentials for the login form.
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }
    }

    /// What the next `navigateToUrl` is: a login page for the user, or a logout chain the web view follows alone.
    public enum Navigation: Sendable, Equatable {
        /// An MVPD login page: the player signs in (or the page waits for the person). The default.
        case signIn
        /// A logout chain: followed to its end and handed to `handleExternalURL`, with nothing for the user to do.
        case logout
    }

    /// Why the app could not go on; `onFailure` receives it.
    public enum Failure: Error, Sendable, Equatable {
        /// The SDK showed the picker and the script names no MVPD (the IDs offered).
        case noProviderChosen(offered: [String])
        /// The SDK opened a login page and the script has no credentials.
        case noCredentials
        /// ``signIn(username:password:)`` was called while no login page was showing.
        case noLoginPending
        /// The login page did not end at the app's redirect URL (the web view's message: wrong password, refusal).
        case signInFailed(String)
        /// The logout chain stopped on a page.
        case logoutFailed(String)
    }

    /// The SDK, configured for this app on this device.
    public let enabler: AccessEnabler
    /// The configuration the SDK was made with (device ID, storage, service provider).
    public let configuration: AccessEnablerConfiguration
    /// The device's hardware profile (loaded or made in the device folder).
    public let profile: DeviceProfile
    /// The app's web view (its request count is the benchmarks' web round trips).
    public var webView: HeadlessWebView { screen.webView }

    private let screen: SimulatedScreen

    /// Makes the app on `device` (see ``AccessEnablerConfiguration/simulated(app:device:osVersion:sdkRelease:serviceProvider:)``).
    ///
    /// - Parameters:
    ///   - configure: changes to the configuration before the SDK is made (a test clock, a poll interval).
    ///   - onCallback: every delegate and status callback, in order, on the SDK's delegate queue, before the
    ///     player answers it; `nil`: the app has no status delegate (as an app that ignores `status`).
    ///   - onFailure: why the app cannot go on (see ``Failure``); called on any thread.
    /// - Throws: what ``AccessEnablerConfiguration/simulated(app:device:osVersion:sdkRelease:serviceProvider:)`` throws.
    public init(
        app: AppIdentity, device: DeviceFolder, osVersion: String? = nil, serviceProvider: URL, player: Player,
        configure: (inout AccessEnablerConfiguration) -> Void = { _ in }, logger: Logger = Logger(label: "AccessEnabler"),
        onCallback: (@Sendable (EntitlementCallback) -> Void)? = nil,
        onFailure: @escaping @Sendable (Failure) -> Void = { _ in }
    ) throws {
        var (configuration, profile) = try AccessEnablerConfiguration.simulated(
            app: app, device: device, osVersion: osVersion, serviceProvider: serviceProvider)
        configure(&configuration)
        let screen = SimulatedScreen(
            player: player, platform: app.platform, redirectURL: configuration.redirectURL, svcRedirectURL: configuration.svcRedirectURL, onCallback: onCallback ?? { _ in }, onFailure: onFailure)
        enabler = AccessEnabler(
            configuration: configuration, delegate: screen, statusDelegate: onCallback == nil ? nil : screen, logger: logger)
        screen.attach(enabler)
        self.configuration = configuration
        self.profile = profile
        self.screen = screen
    }

    /// `setRequestor` at the configuration's service provider; with `secret` and `publicKey`, the signed form (tvOS
    /// second screen).
    public func setRequestor(_ requestorID: String, secret: String? = nil, publicKey: String? = nil) {
        let providers = [configuration.defaultServiceProvider]
        if let secret, let publicKey {
            enabler.setRequestor(requestorID, serviceProviders: providers, secret: secret, publicKey: publicKey)
        } else {
            enabler.setRequestor(requestorID, serviceProviders: providers)
        }
    }

    /// What the next `navigateToUrl` is for; call it before `logout` (a logout chain is followed without the user),
    /// and `.signIn` before a login. After a logout chain the app expects a login again.
    public func expect(_ navigation: Navigation) { screen.expect(navigation) }

    /// The picker's offer while it waits for the person (``Player/person``); `nil` when no picker is showing.
    public var pendingProviders: [MVPD]? { screen.pendingProviders }

    /// The login page's URL while it waits for the person; `nil` when none is showing.
    public var pendingLoginURL: String? { screen.pendingLoginURL }

    /// The person answered the picker (or went around it, e.g. `handleExternalURL` by hand): it and any login page
    /// stop showing.
    public func providerAnswered() { screen.providerAnswered() }

    /// Signs in on the showing login page, then hands the redirect URL to the SDK (`handleExternalURL`).
    /// - Throws: ``Failure/noLoginPending``, or ``Failure/signInFailed(_:)`` with the page's message.
    public func signIn(username: String, password: String) async throws(Failure) {
        try await screen.signIn(Credentials(username: username, password: password))
    }

    /// True while the web view follows a logout chain on its own.
    public var isFollowingLogout: Bool { screen.isFollowingLogout }

    /// The status of the app's last `setAuthenticationStatus`; `nil` before the first.
    public var authenticated: Bool? { screen.authenticated }
}
