import Foundation

/// The platform's single sign-on (Apple's TV Provider / VideoSubscriberAccount), which the app provides.
///
/// When the requestor has MVPDs with platform SSO support, `getAuthentication` calls
/// `presentTvProviderDialog`, asks these services for the user's choice, and exchanges a platform sign-in for an
/// authentication token without a login page. On a device the app implements this
/// over VideoSubscriberAccount; off a device, `PassSimulator`'s `SimulatedPlatformServices` plays the system picker.
public protocol PlatformServices: Sendable {
    /// Shows the system TV-provider picker offering `mvpds` and returns what the user did.
    func requestSignIn(mvpds: [MVPD]) async -> PlatformSignInResult
}

/// What the user did in the system TV-provider picker.
public enum PlatformSignInResult: Sendable, Equatable {
    /// Signed in (or already was): the provider and the signed profile (SAML response) the platform holds.
    case signedIn(mvpdID: String, samlResponse: String)
    /// Chose "Other TV Providers": the SDK shows its own picker (status `N003`).
    case otherProvider
    /// Picked a provider this app's Programmer does not support for SSO (status `N004`).
    case unsupportedProvider(mvpdID: String)
    /// Closed the picker (status `N005`, authentication cancelled).
    case cancelled
    /// The platform failed (status `AAPL_ERROR`); the SDK falls back to its own picker.
    case failed(String)
}
