import PassEvents
import Foundation
import GRDB

/// A session found by a search, with what each word matched.
public struct SessionMatch: Encodable, Sendable, Equatable {
    /// The session found.
    public var session: HistorySession
    /// One per word of the search, the most specific field first (``SessionField``'s order).
    public var matches: [FieldMatch]

    /// A session and what the search's words matched in it.
    public init(session: HistorySession, matches: [FieldMatch]) {
        self.session = session
        self.matches = matches
    }
}

/// Where one word of a search matched: the field, the whole value, and the value cut around the match so a page can
/// highlight it (`before` + `matched` + `after` is the value).
public struct FieldMatch: Codable, Sendable, Equatable {
    /// Which field the word matched.
    public var field: SessionField
    /// The field's words (``SessionField/label``).
    public var label: String
    /// The field's whole value.
    public var value: String
    /// The value before the match.
    public var before: String
    /// The matched part (to highlight).
    public var matched: String
    /// The value after the match.
    public var after: String

    package init(field: SessionField, value: String, offset: Int, length: Int) {
        self.field = field
        label = field.label
        self.value = value
        let start = min(offset, value.count), end = min(start + length, value.count)
        before = String(value.prefix(start))
        matched = String(value.dropFirst(start).prefix(end - start))
        after = String(value.dropFirst(end))
    }
}

/// A value another system knows that stands for one the history holds: the backend knows which user ID a username
/// signed in as, the console knows an app's name. A search word that starts `shown` finds the sessions whose
/// `field` is `value`, and the result names `shownField` and `shown`.
public struct SessionAlias: Sendable, Equatable {
    /// The field the result names (e.g. username).
    public var shownField: SessionField
    /// The value people know (e.g. `carol`).
    public var shown: String
    /// The field the history holds.
    public var field: SessionField
    /// The value the history holds for it (e.g. her user ID).
    public var value: String

    /// `shown` (a `shownField`) stands for `value` of `field`.
    public init(shownField: SessionField, shown: String, field: SessionField, value: String) {
        self.shownField = shownField
        self.shown = shown
        self.field = field
        self.value = value
    }
}

/// How a search reads its text.
package enum SessionSearch {
    /// The words of a search, folded; an ellipsis a page put after a shortened ID (`DAC9E095…`) is dropped.
    package static func words(_ text: String) -> [String] {
        text.split(whereSeparator: \.isWhitespace).map { word in
            var word = Substring(word)
            while word.hasSuffix("…") || word.hasSuffix(".") { word = word.dropLast() }
            return fold(String(word))
        }.filter { !$0.isEmpty }
    }

    /// The case-insensitive form both the index and a search word are compared in.
    package static func fold(_ text: String) -> String { text.lowercased() }

    /// The index entries starting with `word` sort from `word` up to (not including) this.
    package static func upperBound(_ word: String) -> String { word + "\u{10FFFF}" }

    /// Keeps `match` for session `key` unless a more specific field (``SessionField``'s order) matched it already.
    package static func offer(_ match: FieldMatch, for key: Int64, in best: inout [Int64: FieldMatch]) {
        if let current = best[key], current.field <= match.field { return }
        best[key] = match
    }

    /// The sessions found so far (`nil`: before the first word) narrowed to those the next word found too, with its
    /// match appended.
    package static func narrow(_ found: [Int64: [FieldMatch]]?, by matches: [Int64: FieldMatch]) -> [Int64: [FieldMatch]] {
        guard var current = found else { return matches.mapValues { [$0] } }
        current = current.filter { matches[$0.key] != nil }
        for key in current.keys { current[key]!.append(matches[key]!) }
        return current
    }
}

extension HistoryDatabase {
    /// Sessions a support person is looking for, the most recently active first, at most `limit`.
    ///
    /// Every word of `text` must start (in any case) one of the session's values: user ID as the Tokens page shows
    /// it, tracking hash, visitor ID, device ID, session ID, app (or any dot-separated part of its bundle ID),
    /// Programmer or MVPD; or one of `aliases`' shown values. Words are read through the search index
    /// (`session_term`'s primary key), not the events. An empty search lists the latest sessions with no matches.
    public func sessions(matching text: String, aliases: [SessionAlias] = [], limit: Int = 200) async throws -> [SessionMatch] {
        let words = SessionSearch.words(text)
        let limit = max(1, limit)
        return try await writer.read { db in
            guard !words.isEmpty else {
                return try HistorySession.order(Column("lastSeen").desc, Column("id")).limit(limit).fetchAll(db)
                    .map { SessionMatch(session: $0, matches: []) }
            }
            let found = try Self.sessionsMatching(db, words: words, aliases: aliases)
            guard !found.isEmpty else { return [] }
            let keys = found.keys.map(String.init).joined(separator: ",")
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM session WHERE key IN (\(keys)) ORDER BY lastSeen DESC, id LIMIT ?",
                arguments: [limit])
            return try rows.map { row in
                let matches = (found[row["key"]] ?? []).sorted { $0.field < $1.field }
                return SessionMatch(session: try HistorySession(row: row), matches: matches)
            }
        }
    }

    /// The sessions (by `session.key`) every one of `words` (folded, at least one) finds, each with what each word
    /// matched, in the words' order.
    static func sessionsMatching(_ db: Database, words: [String], aliases: [SessionAlias]) throws -> [Int64: [FieldMatch]] {
        var found: [Int64: [FieldMatch]]?
        for word in words {
            found = SessionSearch.narrow(found, by: try sessionsMatching(db, word: word, aliases: aliases))
            if found?.isEmpty == true { return [:] }
        }
        return found ?? [:]
    }

    /// For one folded word: each session it finds, with the most specific field it matched.
    static func sessionsMatching(_ db: Database, word: String, aliases: [SessionAlias]) throws -> [Int64: FieldMatch] {
        var best: [Int64: FieldMatch] = [:]
        func offer(_ key: Int64, _ match: FieldMatch) { SessionSearch.offer(match, for: key, in: &best) }
        let rows = try Row.fetchCursor(db, sql: """
            SELECT sessionKey, field, value, offset FROM session_term WHERE term >= ? AND term < ?
            """, arguments: [word, SessionSearch.upperBound(word)])
        while let row = try rows.next() {
            guard let field = SessionField(rawValue: row[1]) else { continue }
            offer(row[0], FieldMatch(field: field, value: row[2], offset: row[3], length: word.count))
        }
        for alias in aliases where SessionSearch.fold(alias.shown).hasPrefix(word) {
            let keys = try Int64.fetchAll(db, sql: "SELECT sessionKey FROM session_term WHERE term = ? AND field = ?",
                arguments: [SessionSearch.fold(alias.value), alias.field.rawValue])
            for key in keys { offer(key, FieldMatch(field: alias.shownField, value: alias.shown, offset: 0, length: word.count)) }
        }
        return best
    }
}
