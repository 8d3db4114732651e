/// The rule for a visitor ID (`OPTION_VISITOR_ID`, sent as `PassConstants.HEADER_VISITOR_ID`): one HTTP header
/// value of printable ASCII without spaces, at most ``maxLength`` characters. The command line refuses others; the
/// backend records only values that follow it.
public enum VisitorID {
    /// The longest visitor ID accepted (an Experience Cloud ID is 38 digits).
    public static let maxLength = 256

    /// Why `value` cannot be a visitor ID, or nil when it can.
    public static func problem(_ value: String) -> String? {
        if value.isEmpty { return "must not be empty." }
        if value.utf8.count > maxLength { return "is longer than \(maxLength) characters." }
        if !value.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) {
            return "may hold only printable ASCII without spaces (it is sent as an HTTP header)."
        }
        return nil
    }
}
