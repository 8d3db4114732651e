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
