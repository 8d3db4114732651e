import Foundation
import PassHistory

/// An `app:` filter term as people write it: the full bundle ID, the name the console shows
/// (`app:"News (iPhone)"`), the end of the bundle ID (`app:news.ios`, `app:ios`) or the start of the name
/// (`app:news`), in any case. Resolved against the apps the console knows (its own, and every app the history has
/// sessions of) to the bundle IDs the history filters on; nothing or more than one app answers with the choices, as an
/// unknown filter key answers with the nearest key.
struct AppTerm: Sendable, Equatable {
    /// The value as written.
    var written: String
    /// `-app:`: leave the app out.
    var negated: Bool

    /// An app the console knows: its bundle ID and, for the console's own apps, the name its pages show.
    struct Known: Sendable, Equatable {
        var bundleID: String
        var name: String?

        /// `News (iPhone) — com.example.news.ios`, or the bundle ID alone.
        var words: String { name.map { "\($0) — \(bundleID)" } ?? bundleID }
    }

    /// The apps `written` names, by the first of these rules that names any (case ignored): the bundle ID; the name;
    /// the bundle ID's last parts (`news.ios`, `ios`); the start of the name; one part of the bundle ID (`news`).
    static func matches(_ written: String, among known: [Known]) -> [Known] {
        let value = written.lowercased()
        let rules: [(Known) -> Bool] = [
            { $0.bundleID.lowercased() == value },
            { $0.name?.lowercased() == value },
            { $0.bundleID.lowercased().hasSuffix("." + value) },
            { $0.name?.lowercased().hasPrefix(value) == true },
            { $0.bundleID.lowercased().split(separator: ".").contains { $0 == value } },
        ]
        for rule in rules {
            var seen: Set<String> = []
            let found = known.filter(rule).filter { seen.insert($0.bundleID.lowercased()).inserted }
            if !found.isEmpty { return found }
        }
        return []
    }

    /// `com.example.app`: three or more dot-separated parts of letters, digits, `-` and `_`.
    static func isBundleID(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 3 && parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        }
    }

    /// The bundle IDs this term stands for. - Throws: why it names no app, or (not negated) several, with the choices.
    func bundleIDs(among known: [Known]) throws(FilterQuery.Invalid) -> [String] {
        let found = Self.matches(written, among: known)
        let term = (negated ? "-" : "") + "app:" + written
        // A whole bundle ID (three parts or more, `com.example.app`) of an app that has not reported yet is taken as
        // written: a live feed may wait for it.
        if found.isEmpty, Self.isBundleID(written) { return [written] }
        if found.isEmpty {
            let choices = known.sorted { $0.bundleID < $1.bundleID }.prefix(12).map(\.words)
            let nearest = known.map { ($0, FilterQuery.editDistance(written.lowercased(), ($0.name ?? $0.bundleID).lowercased())) }
                .filter { $0.1 <= 3 }.min { $0.1 < $1.1 }?.0
            throw FilterQuery.Invalid(
                message: "\(term) names no app the console knows." + (nearest.map { " Did you mean app:\($0.bundleID) (\($0.name ?? $0.bundleID))?" } ?? ""),
                detail: choices.isEmpty ? "No app has reported yet." : "Apps: " + choices.joined(separator: "; ") + ".")
        }
        if !negated, found.count > 1 {
            throw FilterQuery.Invalid(
                message: "\(term) names \(found.count) apps; write the one you mean, e.g. app:\(found[0].bundleID).",
                detail: "Apps: " + found.map(\.words).joined(separator: "; ") + ".")
        }
        return found.map(\.bundleID)
    }
}
