import AccessEnabler
import Foundation
import MicroHTTP
import PassProtocol
import PassSimulator
import PassStorage

/// `GET /api/devices`: per app, how its device ID is made (algorithm and inputs) and the ID; which apps share tokens
/// and why, by the SSO tech note's rules (seed 003).
struct DeviceReport: Encodable, Sendable {
    struct App: Encodable, Sendable {
        var device: String?
        var bundleID: String
        var teamID: String
        var platform: String
        var algorithm: String
        var inputs: [String: String]
        var deviceID: String
    }

    struct Relation: Encodable, Sendable, Equatable {
        var a: String
        var b: String
        /// `sso`, `partialSSO` (with some MVPDs only), `noSSO` (shared storage and device ID, yet no MVPD gives single
        /// sign-on), `sharedStorageSignInEach` (shared storage, other device IDs, AccessEnabler 1.7: each signs in once
        /// and both stay signed in), `sharedStorageReauth` (the same with 1.8+: one wipes the other), `isolated`.
        var outcome: String
        var reason: String
        /// For apps that share storage and device ID and whose Programmers are known: each MVPD both integrate, and
        /// whether a sign-in with it reaches the other app (``SSOPrediction``), the worse of the two directions.
        var mvpds: [SSOPrediction.Path]? = nil
    }

    struct Profile: Encodable, Sendable {
        var device: String
        var model: String
        var osVersion: String
        var hardwareAddress: String
    }

    var profiles: [Profile]
    var apps: [App]
    var relations: [Relation]

    static func build(
        devices: [ConsoleDevice], apps: [KnownApp], requestors: [String: RequestorConfiguration] = [:], now: Date = Date()
    ) -> DeviceReport {
        var profiles: [Profile] = []
        var loaded: [String: DeviceProfile] = [:]
        for device in devices {
            guard let data = try? device.folder.deviceProfile.read(),
                let profile = try? JSONDecoder().decode(DeviceProfile.self, from: data) else { continue }
            loaded[device.name] = profile
            profiles.append(Profile(device: device.name, model: profile.model, osVersion: profile.osVersion,
                hardwareAddress: String(profile.hardwareAddress.prefix(8)) + "…"))
        }
        let rows = apps.map { known -> App in
            let profile = known.device.flatMap { loaded[$0] }
            return describe(known, profile: profile)
        }
        return DeviceReport(profiles: profiles, apps: rows, relations: relations(apps, profiles: loaded, requestors: requestors, now: now))
    }

    static func describe(_ known: KnownApp, profile: DeviceProfile?) -> App {
        var inputs = ["team": known.identity.teamID, "bundle-ID prefix": known.identity.bundlePrefix]
        var algorithm = "vendor ID (IDFV) of the team and bundle-ID prefix"
        if let profile {
            inputs["OS version"] = profile.osVersion
            if DeviceIdentity.source(profile: profile, app: known.identity) == .hardwareAddress {
                algorithm = "hardware (Wi-Fi MAC) address: iOS below 7, the same for every app"
                inputs = ["OS version": profile.osVersion, "hardware address": String(profile.hardwareAddress.prefix(8)) + "…"]
            }
        }
        return App(device: known.device, bundleID: known.identity.bundleID, teamID: known.identity.teamID,
            platform: known.identity.platform.rawValue, algorithm: algorithm, inputs: inputs, deviceID: known.deviceID)
    }

    /// The tech note's four combinations for every pair of apps, then, for a pair that shares storage and device ID,
    /// what the SDK and the backend make of a sign-in with each MVPD (``SSOPrediction``).
    static func relations(
        _ apps: [KnownApp], profiles: [String: DeviceProfile] = [:], requestors: [String: RequestorConfiguration] = [:], now: Date = Date()
    ) -> [Relation] {
        var result: [Relation] = []
        for (index, a) in apps.enumerated() {
            for b in apps[(index + 1)...] {
                let profile = (a.device ?? b.device).flatMap { profiles[$0] }
                let relation = relation(
                    a.identity, b.identity, devices: (a.device, b.device), profile: profile, releases: (a.sdkRelease ?? .current, b.sdkRelease ?? .current))
                result.append(refined(relation, a, b, requestors: requestors, now: now))
            }
        }
        return result
    }

    /// `relation` for two apps that share storage and device ID, checked MVPD by MVPD; unchanged when their
    /// Programmers or their configurations are unknown, or when both serve the same Programmer.
    static func refined(_ relation: Relation, _ a: KnownApp, _ b: KnownApp, requestors: [String: RequestorConfiguration], now: Date)
        -> Relation
    {
        guard relation.outcome == "sso", let first = a.requestorID.flatMap({ requestors[$0] }),
            let second = b.requestorID.flatMap({ requestors[$0] }), first.requestorID != second.requestorID
        else { return relation }
        let forward = SSOPrediction.paths(from: first, to: second, deviceID: a.deviceID, now: now)
        let backward = SSOPrediction.paths(from: second, to: first, deviceID: b.deviceID, now: now)
        let paths = forward.map { path in path.works ? (backward.first { $0.mvpd == path.mvpd } ?? path) : path }
        var refined = relation
        refined.mvpds = paths
        refined.reason = relation.reason.replacingOccurrences(of: " — single sign-on.", with: ".")
        let working = paths.filter(\.works).map(\.mvpd), failing = paths.filter { !$0.works }
        let pair = "\(first.requestorID) ↔ \(second.requestorID)"
        if paths.isEmpty {
            refined.outcome = "noSSO"
            refined.reason += " But \(pair) have no MVPD in common: nothing to sign in once with."
        } else if failing.isEmpty {
            refined.reason += " Single sign-on with " + working.joined(separator: ", ") + "."
        } else {
            refined.outcome = working.isEmpty ? "noSSO" : "partialSSO"
            refined.reason += (working.isEmpty ? " Yet no single sign-on for \(pair)." : " Single sign-on for \(pair) with "
                + working.joined(separator: ", ") + " only.") + " " + failing.map(\.reason).joined(separator: " ")
        }
        return refined
    }

    /// How two apps share sign-in, by the SSO tech note's rows (seed 003) as the simulator's own rules give them: the
    /// storage each app's SDK opens (``TokenStorageLocation``), the device ID each computes (``DeviceIdentity``) and
    /// what each one's token sanitizer removes (``SDKRelease``).
    ///
    /// - Parameters:
    ///   - devices: the device each is installed on, when known: apps on two devices share nothing, whatever their
    ///     team and bundle IDs.
    ///   - profile: the device's hardware profile (its OS version decides the rules); `nil` judges as a current iOS
    ///     device.
    ///   - releases: the AccessEnabler release of each app.
    static func relation(
        _ a: AppIdentity, _ b: AppIdentity, devices: (String?, String?) = (nil, nil), profile: DeviceProfile? = nil,
        releases: (SDKRelease, SDKRelease) = (.current, .current)
    ) -> Relation {
        if let first = devices.0, let second = devices.1, first != second {
            return Relation(a: a.bundleID, b: b.bundleID, outcome: "isolated",
                reason: "On different devices (\(first), \(second)): nothing is shared; each signs in on its own.")
        }
        if a.platform == .tvOS || b.platform == .tvOS {
            return Relation(a: a.bundleID, b: b.bundleID, outcome: "isolated",
                reason: "tvOS keeps tokens private to each app: each signs in on its own.")
        }
        let phone = profile.flatMap { $0.platform == .iOS ? $0 : nil } ?? Self.currentPhone
        let legacy = TokenStorageLocation.scope(profile: phone, app: a) == .device
        guard TokenStorageLocation.scope(profile: phone, app: a) == TokenStorageLocation.scope(profile: phone, app: b) else {
            return Relation(a: a.bundleID, b: b.bundleID, outcome: "isolated",
                reason: "Different teams (\(a.teamID), \(b.teamID)): separate storage, each keeps its own session.")
        }
        guard DeviceIdentity.deviceID(profile: phone, app: a) == DeviceIdentity.deviceID(profile: phone, app: b) else {
            let prefixes = "Same team, different bundle-ID prefixes (\(a.bundlePrefix), \(b.bundlePrefix)): they share storage but "
                + "not the device ID, so each must sign in once"
            switch (releases.0.sanitizerRemovesEveryOtherDevice, releases.1.sanitizerRemovesEveryOtherDevice) {
            case (false, false):
                return Relation(a: a.bundleID, b: b.bundleID, outcome: "sharedStorageSignInEach",
                    reason: prefixes + "; with AccessEnabler 1.7 both then stay signed in (each sees the other's token and "
                        + "leaves it alone).")
            case (true, true):
                return Relation(a: a.bundleID, b: b.bundleID, outcome: "sharedStorageReauth",
                    reason: prefixes + ", and each one's sanitizer (AccessEnabler 1.8 and later) removes the other's tokens: "
                        + "switching apps signs the user out.")
            case (let first, _):
                let (wiper, wiped) = first ? (a.bundleID, b.bundleID) : (b.bundleID, a.bundleID)
                return Relation(a: a.bundleID, b: b.bundleID, outcome: "sharedStorageReauth",
                    reason: prefixes + ", and \(wiper)'s sanitizer (AccessEnabler 1.8 and later) removes \(wiped)'s tokens "
                        + "(1.7 leaves them): opening \(wiper) signs \(wiped) out.")
            }
        }
        if legacy {
            return Relation(a: a.bundleID, b: b.bundleID, outcome: "sso",
                reason: "iOS \(phone.osVersion) (6 and earlier): one pasteboard for every app and the device ID from the "
                    + "Wi-Fi MAC address — single sign-on between any apps, whatever their team.")
        }
        return Relation(a: a.bundleID, b: b.bundleID, outcome: "sso",
            reason: "Same team and bundle-ID prefix (\(a.bundlePrefix)): shared storage and the same device ID — single sign-on.")
    }

    /// A current iPhone, for apps whose device profile is not known: only whether two apps' IDs are equal matters.
    static let currentPhone = DeviceProfile(
        hardwareAddress: "a4:83:e7:00:00:00", model: "iPhone15,2",
        osVersion: DeviceProfile.defaultOSVersion, vendorSeed: String(repeating: "0", count: 64), advertisingID: "")
}
