import Crypto
import AccessEnabler
import Foundation
import PassProtocol

/// The one rule for personal data in anything exported: user IDs, household IDs, usernames and email addresses are
/// replaced by a stable keyed hash (`u-3f2a9c1b`), ZIP codes are removed.
///
/// Sits beside ``EntitlementEvent/redacted()``, which hides secrets (tokens, passwords) before an event is even
/// stored: personal data stays in the history, because a support person working a ticket searches by it, and is taken
/// out only when something leaves the console (an events export, a HAR file, a storage export, a support bundle).
///
/// Used in two passes over what one export holds: ``learn(from:)-(EntitlementEvent)`` collects the personal values
/// found under known names (`session_guid`, `userID`, `zip`, a token's GUID, user metadata), then every string goes
/// through ``redact(_:)-(String)``, which replaces each learned value wherever it appears — in a response body, a
/// callback's argument, an error message — and any email address. The same value always gets the same stand-in for
/// one key, so rows of one user still group; the key never leaves the console, so a stand-in cannot be reversed by
/// hashing guesses (a ZIP code or a username is easy to guess).
///
/// ```swift
/// var redaction = PersonalDataRedaction(key: consoleKey)
/// redaction.learn(from: events)
/// let safe = events.map { redaction.redact($0) }
/// let report = redaction.report(revealed: false)   // which kinds were found and replaced, and the rule in words
/// ```
public struct PersonalDataRedaction: Sendable {
    /// A kind of personal data.
    public enum Field: String, CaseIterable, Codable, Sendable, Comparable {
        case userID, householdID, username, email, zip

        /// The plural in words, for "redacted: user IDs, ZIP codes".
        public var label: String {
            switch self {
            case .userID: "user IDs"
            case .householdID: "household IDs"
            case .username: "usernames"
            case .email: "email addresses"
            case .zip: "ZIP codes"
            }
        }

        /// The stand-in's prefix; nil for a field that is removed rather than hashed.
        var prefix: String? {
            switch self {
            case .userID: "u-"
            case .householdID: "h-"
            case .username: "n-"
            case .email: "e-"
            case .zip: nil
            }
        }

        /// The field a parameter, JSON key or XML element of this name holds, if personal (case, `_` and `-` ignored):
        /// `session_guid`, `userId`, `upstreamUserID`, `name_id`, `householdID`, `zip`, `postalCode`, `email`, `username`, …
        public static func named(_ name: String) -> Field? {
            let key = String(name.lowercased().filter { $0 != "_" && $0 != "-" })
            return keys[key]
        }

        private static let keys: [String: Field] = [
            "userid": .userID, "upstreamuserid": .userID, "sessionguid": .userID, "userguid": .userID, "nameid": .userID,
            "samlnameid": .userID, "subscriberid": .userID, "accountid": .userID,
            "householdid": .householdID, "household": .householdID,
            "username": .username, "user": .username, "login": .username, "loginname": .username,
            "jusername": .username, "idtoken1": .username,  // the MVPD login pages' own names (j_username, OpenAM)
            "email": .email, "emailaddress": .email, "mail": .email,
            "zip": .zip, "zipcode": .zip, "postalcode": .zip, "postcode": .zip,
        ]

        public static func < (a: Field, b: Field) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
    }

    /// What an export says about its personal data: whether the operator revealed it, which kinds were replaced,
    /// and the rule in words.
    public struct Report: Codable, Sendable, Equatable {
        /// True when the operator chose to keep personal data in the file (the console's audit log records it).
        public var revealed: Bool
        /// The kinds of personal data that were found and replaced (empty when revealed, or when none was found).
        public var removed: [Field]
        /// The rule, as a sentence a reader of the file can act on.
        public var rule: String

        /// `user IDs, ZIP codes`, or `nothing` when nothing was replaced.
        public var removedText: String { removed.isEmpty ? "nothing" : removed.map(\.label).joined(separator: ", ") }
    }

    /// The rule in words, written into every export.
    public static let rule = "Personal data is replaced before export: user IDs (token GUIDs, session_guid, userID, "
        + "SAML name IDs) by a stable hash u-…, household IDs by h-…, usernames by n-…, email addresses by e-…; ZIP codes "
        + "are removed ([ZIP removed]). One value always gets the same hash from this console, so rows of one user still "
        + "group; the hash is keyed with a secret that never leaves the console, so it cannot be reversed by guessing. "
        + "An operator may export with personal data on purpose (reveal=personal), which the audit log records."

    /// The stand-in of a removed ZIP code.
    public static let removedZip = "[ZIP removed]"

    /// The HMAC key's bytes (`SymmetricKey` is not `Sendable`).
    private let key: Data
    /// Each learned value and its stand-in.
    var known: [String: (field: Field, standIn: String)] = [:]
    /// The ``shape(count:first:last:)`` of every learned value: a word of another shape is not looked up.
    var knownShapes: Set<Int> = []
    /// The kinds replaced so far.
    var found: Set<Field> = []

    /// A redaction whose stand-ins are keyed with `key`, secret random bytes (one key per console, so its exports
    /// agree).
    public init(key: Data) {
        self.key = key
    }

    /// 32 random bytes for ``init(key:)``.
    public static func makeKey() -> Data {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }

    /// The stand-in of `value` as a `field`: `u-` and 8 hex digits of an HMAC-SHA256, or `[ZIP removed]`.
    public func standIn(for value: String, as field: Field) -> String {
        guard let prefix = field.prefix else { return Self.removedZip }
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(field.rawValue):\(value)".utf8), using: SymmetricKey(data: key))
        return prefix + mac.prefix(4).map { String(format: "%02x", $0) }.joined()
    }

    /// The report of what this redaction replaced so far.
    public func report(revealed: Bool) -> Report {
        Report(revealed: revealed, removed: revealed ? [] : found.sorted(), rule: Self.rule)
    }

    // MARK: - Learning

    /// Remembers `value` as personal data of kind `field` (values under 3 characters are ignored: too likely to be
    /// something else).
    public mutating func learn(_ value: String, as field: Field) {
        guard known[value] == nil else { return }  // the common case in an export: a value seen before
        let value = value.trimmingCharacters(in: .whitespaces)
        guard value.utf8.count >= 3, value.utf8.count <= 256, known[value] == nil else { return }
        // An email address is one however it is capitalised (its stand-in in free text is made the same way).
        known[value] = (field, standIn(for: field == .email ? value.lowercased() : value, as: field))
        knownShapes.insert(Self.shape(count: value.utf8.count, first: value.utf8.first!, last: value.utf8.last!))
    }

    /// Learns from every event of an export before any of them is redacted.
    public mutating func learn(from events: [EntitlementEvent]) {
        for event in events { learn(from: event) }
    }

    /// Learns the personal values an event holds under a known name: form and query parameters, API arguments,
    /// JSON and XML in answers, the item `getMetadata` returned.
    public mutating func learn(from event: EntitlementEvent) {
        switch event.kind {
        case .httpExchange(let exchange):
            learn(named: exchange.parameters)
            if exchange.url.contains("?"), let items = URLComponents(string: exchange.url)?.queryItems {
                for item in items { if let field = Field.named(item.name), let value = item.value { learn(value, as: field) } }
            }
            if let body = exchange.responseBody { learn(fromText: body) }
            if let served = exchange.served {
                if let user = served.userID { learn(user, as: .userID) }
                if let name = served.username { learn(name, as: .username) }
            }
        case .apiCall(_, let arguments):
            learn(named: arguments)
        case .callback(.setMetadataStatus(let metadata, _, _, let arguments)):
            // `getMetadata` names the user-metadata item in an argument (`user_metadata_name: zip`); the answer is its
            // JSON value (a string, number, array or object).
            guard let metadata, let field = (arguments ?? [:]).values.lazy.compactMap(Field.named).first,
                let text = try? JSONEncoder().encode(metadata)
            else { return }
            learn(jsonOrText: String(decoding: text, as: UTF8.self), as: field)
        case .callback(.status(let dictionary)):
            learn(named: dictionary)
        default: break
        }
        // Free text anywhere in the event (an error message, a callback's description, a tracking value, a page's
        // text) that names a personal value: `subscriberId=sub-777`, `userID: U-1`, `"zip":"10001"`.
        learn(namedValuesIn: event.fastJSON())
    }

    /// Learns the values that `text` names with a personal name, written as free text does: `name=value`,
    /// `name: value`, `name="value"`, and JSON's `"name":"value"` (also escaped inside another JSON string). A value is
    /// one word (letters, digits and `-_.@+%`), so `subscriberId=sub-777 was refused` learns `sub-777` only.
    public mutating func learn(namedValuesIn text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func isNameByte(_ byte: UInt8) -> Bool {
            (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        func skip(_ allowed: Set<UInt8>) { while index < bytes.count, allowed.contains(bytes[index]) { index += 1 } }
        while index < bytes.count {
            guard isNameByte(bytes[index]) else { index += 1; continue }
            let start = index
            while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
            // The longest name known is 15 bytes (`upstreamuserid` with separators: a little more).
            guard index - start >= 3, index - start <= 24,
                let field = Field.named(String(decoding: bytes[start..<index], as: UTF8.self))
            else { continue }
            skip(Self.quotesAndSpaces)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") || bytes[index] == UInt8(ascii: ":") else { continue }
            index += 1
            skip(Self.quotesAndSpaces)
            let valueStart = index
            while index < bytes.count, Self.isWordByte(bytes[index]) { index += 1 }
            var end = index
            while end > valueStart, bytes[end - 1] == UInt8(ascii: ".") || bytes[end - 1] == UInt8(ascii: "-") { end -= 1 }
            guard end > valueStart else { continue }
            let value = String(decoding: bytes[valueStart..<end], as: UTF8.self)
            learn(value.contains("%") ? value.removingPercentEncoding ?? value : value, as: field)
        }
    }

    /// What may stand between a name and its value, and before the value: quotes (escaped too) and spaces.
    static let quotesAndSpaces: Set<UInt8> = [UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"), UInt8(ascii: " "), UInt8(ascii: "\t")]

    /// Learns the user IDs in a token storage (each authentication token's GUID and SAML name ID) and its user
    /// metadata items.
    public mutating func learn(from storage: TokenStorage) {
        for bucket in storage.requestors.values {
            for tokens in bucket.mvpds.values {
                if let serialized = tokens.authnToken, let token = try? SignedToken<AuthNToken>.parse(serialized).body {
                    learn(token.guid, as: .userID)
                    if let nameID = token.samlNameID { learn(nameID, as: .userID) }
                }
                if let meta = tokens.userMeta { learn(fromText: meta) }
            }
        }
    }

    /// Learns from text that may be JSON (every string under a personal key, at any depth) or XML (`<zip>…</zip>`,
    /// and JSON inside an element such as `<userMeta>`).
    public mutating func learn(fromText text: String) {
        // Most answers name no personal field: a scan for the names' fragments is far cheaper than parsing them.
        let lower = text.lowercased()
        guard Self.nameFragments.contains(where: { lower.contains($0) }) else { return }
        let trimmed = text.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        if trimmed.first == "{" || trimmed.first == "[",
            let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8), options: [.fragmentsAllowed])
        {
            learn(json: object, as: nil)
            return
        }
        guard text.contains("<") else { return }
        // `<name>value</name>` without nested elements: the shape of the SDK answers' simple items.
        var rest = text[...]
        while let open = rest.range(of: "<") {
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.firstIndex(of: ">") else { break }
            let name = afterOpen[..<close]
            let content = afterOpen[afterOpen.index(after: close)...]
            rest = content
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == "_" }),
                let end = content.range(of: "</\(name)>")
            else { continue }
            let value = HTMLText.unescape(String(content[..<end.lowerBound]))
            guard !value.contains("<") else { continue }
            if let field = Field.named(String(name)) {
                learn(jsonOrText: value, as: field)
            } else if value.first == "{" {
                learn(fromText: value)
            }
        }
    }

    /// A piece of every name ``Field/named(_:)`` knows, lowercased.
    static let nameFragments = ["user", "guid", "name", "household", "login", "mail", "zip", "postcode", "postal", "account",
        "subscriber"]

    private mutating func learn(named dictionary: [String: String]) {
        for (name, value) in dictionary { if let field = Field.named(name) { learn(value, as: field) } }
    }

    private mutating func learn(jsonOrText text: String, as field: Field) {
        if let first = text.utf8.first, first == UInt8(ascii: "[") || first == UInt8(ascii: "{") || first == UInt8(ascii: "\""),
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        {
            learn(json: object, as: field)
        } else {
            learn(text, as: field)
        }
    }

    /// Every string (and number, for ZIP codes) under a personal key at any depth.
    private mutating func learn(json: Any, as field: Field?) {
        switch json {
        case let object as [String: Any]:
            for (name, child) in object { learn(json: child, as: Field.named(name) ?? field) }
        case let array as [Any]:
            for child in array { learn(json: child, as: field) }
        case let string as String:
            if let field { learn(string, as: field) }
        case let number as NSNumber:
            if let field { learn(number.stringValue, as: field) }
        default: break
        }
    }
}
