import Foundation

/// Reads and writes the date format of authN and authZ tokens: `yyyy/MM/dd HH:mm:ss zzz Z`.
///
/// Examples from the seed and our output:
///
/// ```swift
/// TokenDate.format(date)                               // "2011/03/19 00:29:34 GMT +0000"
/// TokenDate.parse("2011/03/19 02:29:34 GMT +0200")     // 2011-03-19T00:29:34Z
/// ```
///
/// Hand-written rather than `DateFormatter`, which is not `Sendable` and whose `zzz` output depends on the
/// ICU data of the platform. Sub-second parts are dropped when formatting.
public enum TokenDate: Sendable {
    /// The Gregorian calendar in UTC; `Calendar` is a `Sendable` value, so one shared copy is safe.
    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }()

    /// Formats `date` in UTC, e.g. `2011/03/19 00:29:34 GMT +0000`.
    public static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let parts = utcCalendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second],
            from: Date(timeIntervalSince1970: seconds)
        )
        return String(
            format: "%04d/%02d/%02d %02d:%02d:%02d GMT +0000",
            parts.year ?? 0,
            parts.month ?? 0,
            parts.day ?? 0,
            parts.hour ?? 0,
            parts.minute ?? 0,
            parts.second ?? 0
        )
    }

    /// Parses a token date with any offset, e.g. `2011/03/19 02:29:34 GMT +0200` (= 00:29:34 UTC).
    ///
    /// The numeric offset (`+0200` or `+02:00`, alone or glued to the zone name as in `GMT+0200`) is what
    /// counts; the zone name is informational. Without an offset only `GMT`, `UTC` and `Z` are accepted.
    ///
    /// - Returns: The date, or `nil` when `text` does not have this shape or names an impossible date.
    public static func parse(_ text: String) -> Date? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count >= 2,
            let day = numbers(words[0], separator: "/"), day.count == 3,
            let time = numbers(words[1], separator: ":"), time.count == 3,
            let offset = offsetSeconds(words.dropFirst(2).joined())
        else { return nil }
        let (year, month, dayOfMonth) = (day[0], day[1], day[2])
        let (hour, minute, second) = (time[0], time[1], time[2])
        guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(dayOfMonth),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        let components = DateComponents(
            year: year,
            month: month,
            day: dayOfMonth,
            hour: hour,
            minute: minute,
            second: second
        )
        guard let local = utcCalendar.date(from: components),
            utcCalendar.component(.day, from: local) == dayOfMonth  // rejects 2011/02/31
        else { return nil }
        return local.addingTimeInterval(-Double(offset))
    }

    /// Splits `word` on `separator` into decimal integers, or `nil` if any part is not one.
    private static func numbers(_ word: Substring, separator: Character) -> [Int]? {
        let parts = word.split(separator: separator, omittingEmptySubsequences: false)
        let values = parts.compactMap { part in
            !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } ? Int(part) : nil
        }
        return values.count == parts.count ? values : nil
    }

    /// The offset from UTC in seconds described by the zone words joined together (e.g. `GMT+0200`).
    private static func offsetSeconds(_ zone: String) -> Int? {
        guard let signIndex = zone.firstIndex(where: { $0 == "+" || $0 == "-" }) else {
            return ["", "GMT", "UTC", "Z"].contains(zone.uppercased()) ? 0 : nil
        }
        let name = zone[..<signIndex]
        guard name.allSatisfy(\.isLetter) else { return nil }
        let sign = zone[signIndex] == "-" ? -1 : 1
        let digits = zone[zone.index(after: signIndex)...].filter { $0 != ":" }
        guard digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits) else {
            return nil
        }
        let (hours, minutes) = (value / 100, value % 100)
        guard hours <= 14, minutes < 60 else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }
}
