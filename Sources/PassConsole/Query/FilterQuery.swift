import AccessEnabler
import Foundation
import PassHistory

/// The console's one filter syntax, kept in the page URL so a filtered view can be shared:
///
/// ```
/// programmer:REF30 mvpd:Cablevision -mvpd:Dish event:callback status:4xx since:-15m app:com.example.news.ios timeout
/// ```
///
/// Key terms: `programmer:` (or `requestor:`), `mvpd:`, `app:`, `session:`, `device:`, `event:` (or `kind:`),
/// `status:` (`2xx` `3xx` `4xx` `5xx` `failed` `error`), `since:` and `until:` (ISO 8601, or relative: `-15m`,
/// `-2h`, `-1d`, `-30s`). A leading `-` leaves matching events out (`programmer`, `mvpd`, `app`, `event`). Other
/// words are text the summary must contain. Quotes keep spaces in a value: `"not authorized"`.
struct FilterQuery: Sendable, Equatable {
    /// The filter the history runs.
    var filter: HistoryFilter

    /// Why a query cannot be used.
    struct Invalid: Error, Equatable { var message: String }

    /// Parses `text` (empty: everything).
    init(_ text: String?, now: Date = Date()) throws(Invalid) {
        var filter = HistoryFilter()
        var words: [String] = []
        for term in Self.terms(text ?? "") {
            var body = Substring(term)
            let negated = body.hasPrefix("-") && body.contains(":")
            if negated { body = body.dropFirst() }
            guard let colon = body.firstIndex(of: ":"), colon != body.startIndex else {
                words.append(String(term))
                continue
            }
            let key = body[..<colon].lowercased()
            let value = String(body[body.index(after: colon)...])
            guard !value.isEmpty else { throw Invalid(message: "'\(term)' has no value after the colon.") }
            switch (key, negated) {
            case ("programmer", false), ("requestor", false): filter.requestorID = value
            case ("programmer", true), ("requestor", true): filter.excludedRequestorIDs.insert(value)
            case ("mvpd", false): filter.mvpdID = value
            case ("mvpd", true): filter.excludedMvpdIDs.insert(value)
            case ("app", false): filter.bundleID = value
            case ("app", true): filter.excludedBundleIDs.insert(value)
            case ("event", false), ("kind", false): filter.kinds.insert(try Self.kind(value))
            case ("event", true), ("kind", true): filter.excludedKinds.insert(try Self.kind(value))
            case ("session", false):
                guard let id = UUID(uuidString: value) else { throw Invalid(message: "'\(value)' is not a session ID.") }
                filter.sessionID = id
            case ("device", false): filter.deviceID = value
            case ("status", false):
                guard let status = HistoryFilter.StatusClass(rawValue: value.lowercased()) else {
                    throw Invalid(message: "status:\(value) is not one of 2xx, 3xx, 4xx, 5xx, failed, error.")
                }
                filter.httpStatus = status
            case ("since", false): filter.from = try Self.date(value, now: now)
            case ("until", false): filter.until = try Self.date(value, now: now)
            case (_, true): throw Invalid(message: "'-\(key):' cannot be negated; only programmer, mvpd, app and event can.")
            default:
                words.append(String(term))
            }
        }
        if !words.isEmpty { filter.text = words.joined(separator: " ") }
        self.filter = filter
    }

    static func kind(_ value: String) throws(Invalid) -> EventKind {
        let match = EventKind.allCases.first { $0.rawValue.lowercased() == value.lowercased() }
        guard let match else {
            let names = EventKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw Invalid(message: "event:\(value) is not a kind of event; use one of \(names).")
        }
        return match
    }

    /// The furthest a relative time may reach back: 100 years, in seconds.
    static let longestLookBack: Double = 100 * 365 * 86400

    /// ISO 8601, or `-<n><s|m|h|d>` before `now`.
    static func date(_ value: String, now: Date) throws(Invalid) -> Date {
        if value.hasPrefix("-"), let unit = value.last, let amount = Double(value.dropFirst().dropLast()) {
            let seconds: Double? = switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            case "d": 86400
            default: nil
            }
            if let seconds {
                // Finite and at most 100 years back: `since:-1e300d` or `-nand` would be a date the history's
                // millisecond conversion cannot hold.
                guard amount.isFinite, amount >= 0, amount * seconds <= Self.longestLookBack else {
                    throw Invalid(message: "'\(value)' reaches too far back: at most 100 years (-36500d).")
                }
                return now.addingTimeInterval(-amount * seconds)
            }
        }
        if let date = EntitlementEvent.Wire.parse(value) { return date }
        throw Invalid(message: "'\(value)' is not a time: use ISO 8601 (2026-11-23T14:00:00Z) or -15m, -2h, -1d.")
    }

    /// Splits on spaces, keeping quoted parts together (quotes removed).
    static func terms(_ text: String) -> [String] {
        var terms: [String] = []
        var current = ""
        var quoted = false
        for character in text {
            if character == "\"" {
                quoted.toggle()
            } else if character == " " && !quoted {
                if !current.isEmpty { terms.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { terms.append(current) }
        return terms
    }
}
