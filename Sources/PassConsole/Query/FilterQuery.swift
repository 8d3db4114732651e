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
/// `status:` (`2xx` `3xx` `4xx` `5xx` `failed` `error`, a code `403`, a range `400-499`), `since:` and `until:` (ISO
/// 8601, or relative: `-15m`, `-2h`, `-1d`, `-30s`); `app:` takes a bundle ID, the app's name or the end of its bundle
/// ID (``AppTerm``). Keys and values are case-insensitive (`MVPD:dish`). A leading `-`
/// leaves matching events out (`programmer`, `mvpd`, `app`, `event`). Other words are text the summary must contain;
/// a word that looks like a key term with a key we do not know (`foo:bar`) is refused with the known keys and the
/// nearest one, rather than searched for as text. Quotes keep spaces in a value: `"not authorized"`; a quoted term is
/// always text.
struct FilterQuery: Sendable, Equatable {
    /// The filter the history runs (its app terms as written until ``resolveApps(among:)``).
    var filter: HistoryFilter
    /// The `app:` terms as written: people write an app's name or the end of its bundle ID (``AppTerm``).
    var appTerms: [AppTerm] = []

    /// Why a query cannot be used.
    struct Invalid: Error, Equatable {
        var message: String
        /// What else helps (the known keys), if anything.
        var detail: String?
    }

    /// The keys, as the filter box and `Public/lib/filter.js` (`KEYS`) list them.
    static let keys = ["programmer", "mvpd", "app", "session", "device", "event", "status", "since", "until"]
    /// Other names the keys answer to.
    static let aliases = ["requestor": "programmer", "kind": "event"]
    /// The HTTP statuses `status:` takes as codes and ranges (0: no answer).
    static let statusCodes = 0...999

    /// Parses `text` (empty: everything).
    init(_ text: String?, now: Date = Date()) throws(Invalid) {
        var filter = HistoryFilter()
        var appTerms: [AppTerm] = []
        var words: [String] = []
        for (term, quoted) in Self.quotedTerms(text ?? "") {
            var body = Substring(term)
            let negated = body.hasPrefix("-") && body.contains(":")
            if negated { body = body.dropFirst() }
            guard !quoted, let colon = body.firstIndex(of: ":"), colon != body.startIndex else {
                words.append(String(term))
                continue
            }
            let written = body[..<colon].lowercased()
            let key = Self.aliases[written] ?? written
            let value = String(body[body.index(after: colon)...])
            // Not a key term: `12:30`, `a.b:c`, a URL (`http://…`) are text.
            guard written.allSatisfy({ $0.isASCII && $0.isLetter }), !value.hasPrefix("//") else {
                words.append(String(term))
                continue
            }
            guard Self.keys.contains(key) else { throw Self.unknownKey(written) }
            guard !value.isEmpty else { throw Invalid(message: "'\(term)' has no value after the colon.") }
            switch (key, negated) {
            case ("programmer", false): filter.requestorID = value
            case ("programmer", true): filter.excludedRequestorIDs.insert(value)
            case ("mvpd", false): filter.mvpdID = value
            case ("mvpd", true): filter.excludedMvpdIDs.insert(value)
            case ("app", false):
                filter.bundleID = value
                appTerms.append(AppTerm(written: value, negated: false))
            case ("app", true):
                filter.excludedBundleIDs.insert(value)
                appTerms.append(AppTerm(written: value, negated: true))
            case ("event", false): filter.kinds.insert(try Self.kind(value))
            case ("event", true): filter.excludedKinds.insert(try Self.kind(value))
            case ("session", false):
                guard let id = UUID(uuidString: value) else { throw Invalid(message: "'\(value)' is not a session ID.") }
                filter.sessionID = id
            case ("device", false): filter.deviceID = value
            case ("status", false):
                if let status = HistoryFilter.StatusClass(rawValue: value.lowercased()) {
                    filter.httpStatus = status
                } else {
                    filter.httpStatusCodes = try Self.statusRange(value)
                }
            case ("since", false): filter.from = try Self.date(value, now: now)
            case ("until", false): filter.until = try Self.date(value, now: now)
            default: throw Invalid(message: "'-\(key):' cannot be negated; only programmer, mvpd, app and event can.")
            }
        }
        if !words.isEmpty { filter.text = words.joined(separator: " ") }
        self.filter = filter
        self.appTerms = appTerms
    }

    /// Whether every `app:` term is already a bundle ID among `known` (nothing to look up elsewhere).
    func appsAreBundleIDs(among known: [AppTerm.Known]) -> Bool {
        appTerms.allSatisfy { term in known.contains { $0.bundleID.lowercased() == term.written.lowercased() } }
    }

    /// Rewrites the `app:` terms into the bundle IDs they name among `known`.
    /// - Throws: a term that names no app, or (not negated) several, with the choices.
    mutating func resolveApps(among known: [AppTerm.Known]) throws(Invalid) {
        guard !appTerms.isEmpty else { return }
        filter.bundleID = nil
        filter.excludedBundleIDs = []
        for term in appTerms {
            let bundleIDs = try term.bundleIDs(among: known)
            if term.negated { filter.excludedBundleIDs.formUnion(bundleIDs) } else { filter.bundleID = bundleIDs[0] }
        }
    }

    /// The refusal of an unknown key, naming the nearest known one when it is a likely typo.
    static func unknownKey(_ key: String) -> Invalid {
        let known = "Keys: " + keys.map { "\($0):" }.joined(separator: ", ") + "."
        guard let near = nearestKey(to: key) else {
            return Invalid(message: "'\(key):' is not a filter key. Put it in quotes to search for it as text.", detail: known)
        }
        return Invalid(message: "'\(key):' is not a filter key. Did you mean '\(near):'?", detail: known)
    }

    /// The known key (or alias) closest to `key`: within two edits, or starting with it.
    static func nearestKey(to key: String) -> String? {
        let names = keys + aliases.keys.sorted()
        if let start = names.first(where: { key.count >= 2 && $0.hasPrefix(key) }) { return aliases[start] ?? start }
        let scored = names.map { ($0, editDistance(key, $0)) }.filter { $0.1 <= 2 && $0.1 < key.count }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return aliases[best.0] ?? best.0
    }

    /// Levenshtein distance.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(1, b.count) where !b.isEmpty {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }

    /// `403` or `400-499`, each code within ``statusCodes``.
    static func statusRange(_ value: String) throws(Invalid) -> ClosedRange<Int> {
        let parts = value.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        let numbers = parts.map { part in Int(part).flatMap { statusCodes.contains($0) ? $0 : nil } }
        guard let low = numbers.first ?? nil, let high = numbers.last ?? nil, low <= high else {
            throw Invalid(message: "status:\(value) is not a status: use a code (403), a range (400-499), or 2xx, 3xx, 4xx, 5xx, failed, error.")
        }
        return low...high
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
    static func terms(_ text: String) -> [String] { quotedTerms(text).map(\.term) }

    /// The terms, each with whether it began with a quote (`"foo:bar"` is text, `mvpd:"Time Warner"` a key term).
    static func quotedTerms(_ text: String) -> [(term: String, quoted: Bool)] {
        var terms: [(String, Bool)] = []
        var current = ""
        var quoted = false
        var startedQuoted = false
        for character in text {
            if character == "\"" {
                if current.isEmpty && !quoted { startedQuoted = true }
                quoted.toggle()
            } else if character == " " && !quoted {
                if !current.isEmpty { terms.append((current, startedQuoted)) }
                current = ""
                startedQuoted = false
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { terms.append((current, startedQuoted)) }
        return terms
    }
}
