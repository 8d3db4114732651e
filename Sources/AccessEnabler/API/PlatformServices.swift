import Foundation

/// The platform's single sign-on (Apple's TV Provider / VideoSubscriberAccount): part of the device, not of the app.
///
/// When the user is not authenticated and the requestor has at least one MVPD with platform SSO support
/// (`enablePlatformServices`), `getAuthentication` calls `presentTvProviderDialog`, asks these services for the
/// user's choice, and (iOS) exchanges a platform sign-in for an authentication token without a login page, or (tvOS,
/// cookbook flow E) shows a registration code for the picked provider and polls for the second-screen sign-in.
/// On a device this is VideoSubscriberAccount; on Linux every simulated device has `PassSimulator`'s
/// `SimulatedPlatformServices`, set per device (`AccessEnablerConfiguration.simulated` installs it), so the
/// Apple dialog follows the MVPDs of the requestor, not the app's wiring. `nil` in the configuration stands for a
/// platform without a TV provider framework: the SDK's own picker.
public protocol PlatformServices: Sendable {
    /// Shows the system TV-provider picker offering `mvpds` and returns what the user did.
    func requestSignIn(mvpds: [MVPD]) async -> PlatformSignInResult
}

/// What the user did in the system TV-provider picker.
public enum PlatformSignInResult: Sendable, Equatable {
    /// Signed in (or already was): the provider and the signed profile (SAML response) the platform holds, and when
    /// the provider's sign-in ends if the platform says (sent to REST API v2 in `AP-Partner-Framework-Status`).
    case signedIn(mvpdID: String, samlResponse: String, expires: Date? = nil)
    /// Picked a provider without handing over a platform sign-in: the SDK signs in itself (tvOS: a registration code
    /// and the second screen, cookbook flow E; iOS: the MVPD's login page, Apple's `PICKER` boarding status).
    case picked(mvpdID: String)
    /// The device is not signed in to any TV provider and the user picked none: the SDK closes the dialog and shows its
    /// own picker.
    case noAccount
    /// The user denied this app access to the TV provider (Settings → TV Provider → the app): status `VSA403`, the
    /// SDK's own picker.
    case permissionDenied
    /// Chose "Other TV Providers": the SDK shows its own picker (status `N003`).
    case otherProvider
    /// Picked a provider this app's Programmer does not support for SSO (status `N004`).
    case unsupportedProvider(mvpdID: String)
    /// Closed the picker (status `N005`, authentication cancelled).
    case cancelled
    /// The platform failed (status `AAPL_ERROR`); the SDK falls back to its own picker.
    case failed(String)
}
