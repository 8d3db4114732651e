import Foundation

/// ISO 8601 in UTC with milliseconds (`2026-11-23T14:32:05.120Z`), the date form of the console's wire and exports.
/// Built by hand: `Date.ISO8601FormatStyle` cost ~5 µs per date, a large part of a page of 200 events.
public enum ISODate {
    /// `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ`; the same text as `Date.ISO8601FormatStyle(includingFractionalSeconds: true)`.
    public static func format(_ date: Date) -> String {
        // From the seconds since 2001 that `Date` stores, truncated to milliseconds, as Foundation does.
        // Dates outside years 0000–9999 (a token's expiry of Int64.max milliseconds, NaN) are written as the nearest
        // end of that range: the text has four year digits, and the conversions below would trap.
        var reference = date.timeIntervalSinceReferenceDate
        if !Civil.range.contains(reference + 978_307_200) { reference = Civil.clamp(reference + 978_307_200) - 978_307_200 }
        let whole = reference.rounded(.down)
        let fraction = min(999, Int((reference - whole) * 1000))
        let wholeSeconds = Int(whole) + 978_307_200
        let day = wholeSeconds >= 0 ? wholeSeconds / 86400 : (wholeSeconds - 86399) / 86400
        let secondOfDay = wholeSeconds - day * 86400
        let (year, month, dayOfMonth) = Civil.date(fromDays: day)
        var bytes = [UInt8]()
        bytes.reserveCapacity(24)
        func digits(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4); bytes.append(UInt8(ascii: "-"))
        digits(month, 2); bytes.append(UInt8(ascii: "-"))
        digits(dayOfMonth, 2); bytes.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2); bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 3600 / 60, 2); bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2); bytes.append(UInt8(ascii: "."))
        digits(fraction, 3); bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
