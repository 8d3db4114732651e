import Foundation

/// The platform an app runs on: decides where tokens live (team-shared on iOS, app-private on tvOS), whether
/// login uses a web view (iOS) or a registration code (tvOS), and the `client_type` sent to the backend.
public enum Platform: String, Codable, Sendable, CaseIterable {
    case iOS = "ios"
    case tvOS = "tvos"

    /// The `client_type` value of the wire protocol (`iOS`, `tvOS`).
    public var clientType: String { self == .iOS ? "iOS" : "tvOS" }
}

/// Who the app is on the device: its bundle ID, its team (the "bundle seed ID"), and its platform.
///
/// iOS apps of one team share token storage; apps whose bundle IDs share a prefix (all components but the last)
/// also share the vendor identifier and therefore the device ID (SSO tech note, seed 003).
public struct AppIdentity: Codable, Sendable, Hashable {
    /// The app's bundle ID, e.g. `com.example.news.ios`.
    public var bundleID: String
    /// The team (bundle seed) ID, e.g. `TEAM1234`.
    public var teamID: String
    /// iOS or tvOS.
    public var platform: Platform

    /// Creates an app identity.
    public init(bundleID: String, teamID: String, platform: Platform = .iOS) {
        self.bundleID = bundleID
        self.teamID = teamID
        self.platform = platform
    }

    /// The bundle-ID prefix that decides the vendor identifier: every component but the last
    /// (`com.example.news.ios` → `com.example.news`).
    public var bundlePrefix: String {
        let components = bundleID.split(separator: ".")
        guard components.count > 1 else { return bundleID }
        return components.dropLast().joined(separator: ".")
    }
}
