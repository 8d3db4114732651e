import Foundation
import PassProtocol

/// A TV provider (MVPD) the Programmer integrates, as the picker shows it (seed: the `MVPD` object).
///
/// Delivered in ``EntitlementDelegate/displayProviderDialog(_:)`` and ``EntitlementDelegate/selectedProvider(_:)``.
public struct MVPD: Codable, Sendable, Hashable {
    /// The MVPD's ID (`mso_id` on the wire), e.g. `Cablevision`.
    public var ID: String
    /// The name to show in the picker.
    public var displayName: String
    /// Where the MVPD's logo is.
    public var logoURL: String
    /// Supports Apple single sign-on (platform services).
    public var enablePlatformServices: Bool
    /// "Authentication per Requestor": tokens are bound to the Programmer that obtained them (no copy-SSO).
    public var hasAuthNPerRequestor: Bool
    /// Passive authentication allowed (for per-requestor MVPDs).
    public var passiveAuthnEnabled: Bool
    /// The login page must be shown in an SFSafariViewController.
    public var useSVC: Bool
    /// Apple SSO boarding: `nil`, `PICKER` or `SUPPORTED`.
    public var boardingStatus: String?

    /// Creates an MVPD value.
    public init(
        ID: String, displayName: String, logoURL: String = "", enablePlatformServices: Bool = false,
        hasAuthNPerRequestor: Bool = false, passiveAuthnEnabled: Bool = true, useSVC: Bool = false
    ) {
        self.ID = ID
        self.displayName = displayName
        self.logoURL = logoURL
        self.enablePlatformServices = enablePlatformServices
        self.hasAuthNPerRequestor = hasAuthNPerRequestor
        self.passiveAuthnEnabled = passiveAuthnEnabled
        self.useSVC = useSVC
        self.boardingStatus = enablePlatformServices ? "SUPPORTED" : nil
    }

    package init(_ info: MVPDInfo, baseURL: URL) {
        var logo = info.logoURL
        if logo.hasPrefix("/"), let absolute = URL(string: logo, relativeTo: baseURL)?.absoluteString { logo = absolute }
        self.init(
            ID: info.id, displayName: info.displayName, logoURL: logo, enablePlatformServices: info.enablePlatformServices,
            hasAuthNPerRequestor: info.authPerAggregator, passiveAuthnEnabled: info.passiveAuthnEnabled,
            useSVC: info.requiresSVC)
    }
}
