import Crypto
import Foundation
import PassProtocol

/// The event types of `sendTrackingData` (spec §3.5, §4), with the seeds' names as raw values.
public enum TrackingEvent: String, Codable, Sendable, CaseIterable {
    case authenticationDetection
    case authorizationDetection
    case mvpdSelection

    /// The user ID (the authentication token's GUID) as tracking data reports it: its MD5 in lowercase hex (spec §4).
    /// A console links a reported hash back to a user ID it knows with this.
    public static func userHash(of guid: String) -> String {
        Insecure.MD5.hash(data: Data(guid.utf8)).hexString
    }

    /// The iOS integer constant (`TRACKING_AUTHENTICATION` = 0, `TRACKING_AUTHORIZATION` = 1,
    /// `TRACKING_MVPD_SELECTION` = 2).
    public var code: Int {
        switch self {
        case .authenticationDetection: 0
        case .authorizationDetection: 1
        case .mvpdSelection: 2
        }
    }
}

/// Builds the data arrays of `sendTrackingData` in the documented order (spec §4); booleans as `"YES"`/`"NO"`,
/// missing items as `"None"`; the last three items come from the requestor configuration.
struct TrackingData: Sendable {
    var deviceType: String
    var clientType: String
    var os: String

    func authentication(success: Bool, mvpd: String?, guid: String?, cached: Bool) -> [String] {
        [yesNo(success), success ? (mvpd ?? none) : none, success ? hashed(guid) : none, success ? yesNo(cached) : none]
            + tail
    }

    func authorization(success: Bool, mvpd: String?, guid: String?, cached: Bool, errorCode: String?, errorDetails: String?)
        -> [String]
    {
        [yesNo(success), mvpd ?? none, success ? hashed(guid) : none, success ? yesNo(cached) : none,
         errorCode.flatMap { $0.isEmpty ? nil : $0 } ?? none, errorDetails.flatMap { $0.isEmpty ? nil : $0 } ?? none] + tail
    }

    func mvpdSelection(mvpd: String) -> [String] { [mvpd] + tail }

    private var tail: [String] { [deviceType, clientType, os] }
    private var none: String { Tracking.TRACKING_NONE }
    private func yesNo(_ value: Bool) -> String { value ? Tracking.TRACKING_YES : Tracking.TRACKING_NO }

    /// The GUID is reported MD5-hashed (spec §4).
    private func hashed(_ guid: String?) -> String {
        guard let guid, !guid.isEmpty else { return none }
        // The same GUID is reported on every authorization of a login: the last one's hash is kept.
        return Self.lastHashed.value(for: guid) { TrackingEvent.userHash(of: $0) }
    }

    private static let lastHashed = LastValueCache<String, String>()
}
