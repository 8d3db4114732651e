import PassEvents
import PassProtocol

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
