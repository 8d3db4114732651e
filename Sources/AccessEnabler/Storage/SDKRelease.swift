import Foundation

/// The AccessEnabler release whose storage rules a simulated app follows, where releases differ in what the user sees
/// (the SSO tech note, seed 003, and its note on 1.8; spec §8.7).
///
/// Only the token sanitizer differs:
/// - ``v1_7`` (1.7.5 to 1.7.x): the sanitizer removes only tokens bound to the device ID the device computed before
///   iOS 7 (from the Wi-Fi MAC address, ``AccessEnablerConfiguration/formerDeviceIDs``) — the iOS 6 → 7 upgrade case
///   it was written for (seed 002). A token of an app of the same team with another bundle-ID prefix (another vendor
///   ID, so another device ID) stays in the shared storage: this app sees it and does not use it (``TokenValidity``
///   with the device ID), and the other app stays signed in (seed 003, second combination: "the user opens app A and
///   is still authenticated").
/// - ``v1_8`` (1.8 and later; this SDK's own behaviour, the default): the sanitizer removes every token bound to
///   another device ID. Apps of one team with different bundle-ID prefixes then wipe each other's sign-ins at every
///   switch (seed 003's 1.8 note); 2.5+ reports it as `SEC412`.
public enum SDKRelease: String, Codable, Sendable, CaseIterable {
    case v1_7 = "1.7"
    case v1_8 = "1.8"

    /// The release this SDK behaves as unless told otherwise.
    public static let current = SDKRelease.v1_8

    /// Whether this release's sanitizer removes tokens bound to any device ID but the current one (not only the
    /// former, pre-iOS 7 one).
    public var sanitizerRemovesEveryOtherDevice: Bool { self == .v1_8 }
}
