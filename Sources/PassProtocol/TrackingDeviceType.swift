/// The device types `sendTrackingData` reports (spec §4, the seeds' list): the last-but-two item of every tracking
/// event. The service names the type in the requestor configuration's `<device>`; the SDK reports only these values.
public enum TrackingDeviceType: String, CaseIterable, Sendable {
    case computer, tablet, mobile, gameconsole, unknown

    /// The type a client of `clientType` reports: `mobile` for iOS; Apple TV is none of the seeds' kinds (not a
    /// computer, tablet, phone or game console), so `unknown`.
    public static func of(clientType: String) -> TrackingDeviceType {
        switch clientType {
        case "tvos": .unknown
        default: .mobile
        }
    }

    /// What a configuration's device (the SDK's `<device>`, or REST API v2's device class from `X-Device-Info`'s
    /// `primaryHardwareType`: `MobilePhone`, `Tablet`, `SetTopBox`, …) becomes in tracking data: one of the seeds'
    /// values, `unknown` for anything else (an Apple TV's `SetTopBox`, a `tv`).
    public static func reported(_ text: String) -> TrackingDeviceType {
        let folded = text.lowercased().filter(\.isLetter)
        if let exact = TrackingDeviceType(rawValue: folded) { return exact }
        switch folded {
        case "mobilephone", "phone", "smartphone": return .mobile
        case "desktop", "laptop", "personalcomputer", "pc": return .computer
        case "console", "gamesconsole", "gamingconsole": return .gameconsole
        default: return .unknown
        }
    }
}
