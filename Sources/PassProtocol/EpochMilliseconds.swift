import Foundation

/// Conversions between `Date` and the epoch-millisecond numbers the REST API and media tokens use.
///
/// REST v1 writes `expires` as a *string* of milliseconds in token answers and as a number in regcode
/// records (spec §5.4.1); media tokens carry `issueTime` in milliseconds (spec §6.3).
public enum EpochMilliseconds: Sendable {
    /// Milliseconds since 1970 for `date`, rounded to the nearest millisecond.
    /// Dates beyond what 64 bits of milliseconds hold (a clock moved by 1e300 s) saturate instead of trapping.
    public static func from(_ date: Date) -> Int64 {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        if milliseconds.isNaN { return 0 }
        if milliseconds >= 0x1p63 { return .max }
        if milliseconds < -0x1p63 { return .min }
        return Int64(milliseconds)
    }

    /// The date `milliseconds` after 1970.
    public static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// Milliseconds since 1970 for `date`, as decimal text.
    public static func string(_ date: Date) -> String {
        String(from(date))
    }

    /// The date for decimal millisecond text, or `nil` when `text` is not an integer.
    public static func date(_ text: String) -> Date? {
        Int64(text.trimmingCharacters(in: .whitespaces)).map(date)
    }
}
