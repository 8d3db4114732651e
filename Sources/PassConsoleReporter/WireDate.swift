import Foundation

/// Dates as the console's wire writes them: ISO 8601 in UTC with milliseconds, `2026-11-23T14:32:05.120Z`.
///
/// Computed from the seconds since 1970 rather than with a formatter: the text is the same on every platform and in
/// every locale, and formatting costs nothing on the app's delegate thread.
enum WireDate {
    /// `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ`, truncated to the millisecond; years outside 0000–9999 are clamped to
    /// that range's ends (the text has four year digits).
    static func format(_ date: Date) -> String {
        // From the seconds since 2001 that `Date` stores, truncated to milliseconds, as Foundation (and the console)
        // does: the same instant reads back as the same text on both sides.
        let lowest = -63_145_526_400.0  // 0000-01-01T00:00:00Z
        let highest = 252_423_993_599.999  // 9999-12-31T23:59:59.999Z
        var reference = date.timeIntervalSinceReferenceDate
        if !(reference >= lowest) { reference = lowest }  // NaN too
        if reference > highest { reference = highest }
        let wholeReference = reference.rounded(.down)
        let fraction = min(999, Int((reference - wholeReference) * 1000))
        let whole = Int(wholeReference) + 978_307_200
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let secondOfDay = whole - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2) + ":"
            + pad(secondOfDay % 3600 / 60, 2) + ":" + pad(secondOfDay % 60, 2) + "." + pad(fraction, 3) + "Z"
    }

    /// Year, month and day of the day `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
