/// The event types of `sendTrackingData:forEventType:` (spec §3.5, §4).
public enum TrackingEventType: Int, CaseIterable, Codable, Sendable {
    /// `TRACKING_AUTHENTICATION` (0), authenticationDetection: success, MVPD, GUID (MD5), cached, then
    /// device type, client type, OS.
    case authenticationDetection = 0
    /// `TRACKING_AUTHORIZATION` (1), authorizationDetection: success, MVPD, GUID (MD5), cached, error code,
    /// error details, then device type, client type, OS.
    case authorizationDetection = 1
    /// `TRACKING_MVPD_SELECTION` (2), mvpdSelection: MVPD, then device type, client type, OS.
    case mvpdSelection = 2
}

/// Tracking constants under their iOS header names (spec §3.5).
public enum Tracking: Sendable {
    /// `TRACKING_AUTHENTICATION`.
    public static let TRACKING_AUTHENTICATION = TrackingEventType.authenticationDetection.rawValue
    /// `TRACKING_AUTHORIZATION`.
    public static let TRACKING_AUTHORIZATION = TrackingEventType.authorizationDetection.rawValue
    /// `TRACKING_MVPD_SELECTION` (the docs call it `TRACKING_GET_SELECTED_PROVIDER`).
    public static let TRACKING_MVPD_SELECTION = TrackingEventType.mvpdSelection.rawValue
    /// `TRACKING_YES`: iOS's string for true.
    public static let TRACKING_YES = "YES"
    /// `TRACKING_NO`: iOS's string for false.
    public static let TRACKING_NO = "NO"
    /// `TRACKING_NONE`: iOS's string for a missing item.
    public static let TRACKING_NONE = "None"
    /// The device types the configuration may report (`<device>`).
    public static let deviceTypes = ["computer", "tablet", "mobile", "gameconsole", "unknown"]
    /// The client types the configuration may report (`<clientType>`).
    public static let clientTypes = ["flash", "html5", "ios", "tvos", "android", "firetv"]
}
