import Foundation
import Locking

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the date format of HTTP headers.
public enum HTTPDate {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The last date formatted: a server dates every answer, and most answers of one second share it.
    private static let last = Mutex<(seconds: Int, text: String)>((Int.min, ""))

    /// Formats a date in GMT.
    public static func format(_ date: Date) -> String {
        let seconds = Int(Civil.clamp(date.timeIntervalSince1970).rounded(.down))
        if let hit = last.withLock({ $0.seconds == seconds ? $0.text : nil }) { return hit }
        let text = build(seconds)
        last.withLock { $0 = (seconds, text) }
        return text
    }

    private static func build(_ seconds: Int) -> String {
        let dayNumber = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - dayNumber * 86400
        let (year, month, day) = Civil.date(fromDays: dayNumber)
        let weekday = days[((dayNumber % 7) + 7) % 7]
        // Plain string building: `String(format:)` went through CFString and cost more than the rest of a
        // static file answer.
        return "\(weekday), \(pad(day, 2)) \(months[month - 1]) \(pad(year, 4)) \(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay % 3600 / 60, 2)):\(pad(secondOfDay % 60, 2)) GMT"
    }

    /// `value` in decimal, zero-padded on the left to `width` digits.
    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Parses an IMF-fixdate; `nil` for anything else.
    public static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, let day = Int(parts[1]), (1...31).contains(day),
            let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3]), (0...9999).contains(year)
        else { return nil }
        // Each part in its range: a client's `If-Modified-Since` must not overflow the arithmetic below.
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3, (0...23).contains(time[0]), (0...59).contains(time[1]), (0...60).contains(time[2])
        else { return nil }
        let days = Civil.days(year: year, month: month + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86400 + time[0] * 3600 + time[1] * 60 + time[2]))
    }
}

/// Howard Hinnant's civil-calendar algorithms: exact for the proleptic Gregorian calendar, no Calendar needed.
enum Civil {
    /// The first second of year 0000 and the last of year 9999, in seconds since 1970.
    static let range: ClosedRange<Double> = -62_167_219_200...253_402_300_799.999

    /// `seconds` since 1970 moved into ``range`` (NaN to its start), so formatting never converts an unbounded
    /// `Double` to `Int`.
    static func clamp(_ seconds: Double) -> Double {
        seconds.isNaN ? range.lowerBound : min(max(seconds, range.lowerBound), range.upperBound)
    }

    /// Year, month (1–12) and day of the `z`th day since 1970-01-01.
    static func date(fromDays z: Int) -> (Int, Int, Int) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days since 1970-01-01 of a date.
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
