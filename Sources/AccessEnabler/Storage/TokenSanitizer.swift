import Foundation
import PassProtocol

/// The token sanitizer of SDK 1.7.5 (seed 002, spec §8.7): removes the tokens this device can no longer use.
///
/// Runs during `setRequestor` with the device ID computed now (the configuration's `deviceID`). Every stored authN token whose
/// device binding does not match it — typically a token obtained on iOS 6 (MAC-based ID) after the upgrade to
/// iOS 7 (vendor-ID-based), or one obtained by an app of the same team with another bundle-ID prefix (seed 003) — is
/// removed together with its whole Programmer–MVPD bucket, because the authZ tokens there are bound to the same
/// device.
/// Unreadable authN tokens go too: nothing could ever use them. Expiry is not the sanitizer's business.
///
/// Without it authorization would fail later with cryptic errors. The engine reports `SEC412` when anything was
/// removed.
///
/// ```swift
/// let removed = TokenSanitizer.sanitize(&storage, deviceID: DeviceIdentity.deviceID(profile: phone, app: app))
/// if !removed.isEmpty { report(.sec412) }
/// ```
public enum TokenSanitizer {
    /// Removes every bucket whose authN token is unreadable or bound to a device other than `deviceID`.
    ///
    /// Buckets without an authN token are left alone, and so is everything of tokens that match.
    ///
    /// - Returns: What was removed, sorted by requestor and MVPD; empty when the storage was already clean.
    ///
    /// - Parameters:
    ///   - release: ``SDKRelease/v1_8`` (the default) removes tokens of every other device ID; ``SDKRelease/v1_7``
    ///     removes only those bound to one of `formerDeviceIDs` (the ID the device computed before iOS 7), and leaves
    ///     tokens of other apps' device IDs for those apps.
    ///   - formerDeviceIDs: the device IDs this device computed before (1.7's sanitizer removes tokens bound to them).
    public static func sanitize(
        _ storage: inout TokenStorage, deviceID: String, release: SDKRelease = .current, formerDeviceIDs: Set<String> = []
    ) -> [RemovedToken] {
        var removed: [RemovedToken] = []
        for (requestor, mvpd, serialized) in storage.authnTokens {
            let reason: RemovedToken.Reason
            do {
                let token = try SignedToken<AuthNToken>.parse(serialized).body
                guard !token.matches(deviceID: deviceID) else { continue }
                if !release.sanitizerRemovesEveryOtherDevice, !formerDeviceIDs.contains(where: token.matches(deviceID:)) { continue }
                reason = .boundToAnotherDevice
            } catch {
                reason = .unreadable(error.reason)
            }
            let authzCount = storage.bucket(requestor: requestor, mvpd: mvpd)?.authzTokens.count ?? 0
            storage.removeBucket(requestor: requestor, mvpd: mvpd)
            removed.append(
                RemovedToken(requestorID: requestor, mvpdID: mvpd, reason: reason, removedAuthzTokens: authzCount)
            )
        }
        return removed
    }
}

/// A Programmer–MVPD bucket the ``TokenSanitizer`` removed, and why.
public struct RemovedToken: Sendable, Equatable, Codable {
    /// Why a bucket was removed.
    public enum Reason: Sendable, Equatable, Codable {
        /// The authN token's fingerprint belongs to another device ID.
        case boundToAnotherDevice
        /// The authN token could not be read.
        case unreadable(String)
    }

    /// The Programmer whose bucket it was.
    public var requestorID: String
    /// The MVPD of the bucket.
    public var mvpdID: String
    /// Why it was removed.
    public var reason: Reason
    /// How many authZ tokens went with it.
    public var removedAuthzTokens: Int

    /// Creates a description of a removed bucket.
    public init(requestorID: String, mvpdID: String, reason: Reason, removedAuthzTokens: Int) {
        self.requestorID = requestorID
        self.mvpdID = mvpdID
        self.reason = reason
        self.removedAuthzTokens = removedAuthzTokens
    }

    /// `REF30/Cablevision: bound to another device ID (2 authZ tokens removed)`.
    public var explanation: String {
        let why =
            switch reason {
            case .boundToAnotherDevice: "bound to another device ID"
            case .unreadable(let detail): "unreadable token (\(detail))"
            }
        return "\(requestorID)/\(mvpdID): \(why) (\(removedAuthzTokens) authZ tokens removed)"
    }
}
