import AccessEnabler
import Foundation
import PassProtocol

extension PersonalDataRedaction {
    /// `text` with every learned personal value and every email address replaced by its stand-in.
    ///
    /// Values are matched as whole words — a run of letters, digits and `-_.@+%` — so `10001` is replaced in
    /// `["10001"]` but not inside `110001`. A trailing `.` or `-` is not part of the word (the end of a sentence).
    /// Runs on every string of every exported event: text with nothing to replace is returned as it is, without a
    /// copy, and a word is looked up only when its length and first and last bytes match a learned value's.
    public mutating func redact(_ text: String) -> String {
        let utf8 = text.utf8
        guard !known.isEmpty || utf8.contains(UInt8(ascii: "@")) || utf8.contains(UInt8(ascii: "%")) else { return text }
        var output: [UInt8]?
        var copiedUpTo = utf8.startIndex
        var index = utf8.startIndex
        while index != utf8.endIndex {
            guard Self.isWordByte(utf8[index]) else {
                index = utf8.index(after: index)
                continue
            }
            let start = index
            var mayBeEmail = false
            while index != utf8.endIndex, Self.isWordByte(utf8[index]) {
                if utf8[index] == UInt8(ascii: "@") || utf8[index] == UInt8(ascii: "%") { mayBeEmail = true }
                index = utf8.index(after: index)
            }
            var end = index
            while end != start, utf8[utf8.index(before: end)] == UInt8(ascii: ".") || utf8[utf8.index(before: end)] == UInt8(ascii: "-") {
                end = utf8.index(before: end)
            }
            guard end != start else { continue }
            let count = utf8.distance(from: start, to: end)
            guard mayBeEmail || knownShapes.contains(Self.shape(count: count, first: utf8[start], last: utf8[utf8.index(before: end)]))
            else { continue }
            // Word runs begin and end at ASCII bytes (every byte of a multi-byte character is a word byte), so these
            // are character boundaries.
            guard let replacement = replacement(for: String(text[start..<end])) else { continue }
            if output == nil { output = []; output!.reserveCapacity(utf8.count + 16) }
            output!.append(contentsOf: utf8[copiedUpTo..<start])
            output!.append(contentsOf: replacement.utf8)
            copiedUpTo = end
        }
        guard var output else { return text }
        output.append(contentsOf: utf8[copiedUpTo...])
        return String(decoding: output, as: UTF8.self)
    }

    /// A learned value's length and first and last bytes, packed: the cheap test a word passes before a look-up.
    static func shape(count: Int, first: UInt8, last: UInt8) -> Int {
        count << 16 | Int(first) << 8 | Int(last)
    }

    /// The event with every string redacted — learn from every event of the export first (``learn(from:)``), so a
    /// value an earlier event only mentions is known: parameters, URL, headers, answer body, API
    /// arguments, callback values, tracking data, messages. Times, IDs of sessions and devices, names of Programmers
    /// and MVPDs are kept.
    public mutating func redact(_ event: EntitlementEvent) -> EntitlementEvent {
        var copy = event
        switch event.kind {
        case .apiCall(let method, let arguments):
            copy.kind = .apiCall(method: method, arguments: redact(arguments))
        case .httpExchange(var exchange):
            exchange.url = redact(exchange.url)
            exchange.parameters = redact(exchange.parameters)
            exchange.headers = redact(exchange.headers)
            exchange.responseBody = exchange.responseBody.map { redact($0) }
            exchange.failure = exchange.failure.map { redact($0) }
            if var served = exchange.served {
                // What a recording server knew: the user, the username, the token in words (it names the user).
                served.userID = served.userID.map { redact($0) }
                served.username = served.username.map { redact($0) }
                served.token = served.token.map { redact($0) }
                exchange.served = served
            }
            copy.kind = .httpExchange(exchange: exchange)
        case .storageChanged(let domain, let change):
            copy.kind = .storageChanged(domain: domain, change: redact(change))
        case .callback(let callback):
            copy.kind = .callback(callback: redact(callback))
        case .tracking(let tracking, let data):
            copy.kind = .tracking(event: tracking, data: data.map { redact($0) })
        case .error(let code, let message):
            copy.kind = .error(code: code, message: redact(message))
        case .stateChanged:
            break
        }
        return copy
    }

    private mutating func redact(_ callback: EntitlementCallback) -> EntitlementCallback {
        switch callback {
        case .navigateToUrl(let url, let useSVC):
            return .navigateToUrl(url: redact(url), useSVC: useSVC)
        case .tokenRequestFailed(let resource, let errorCode, let description):
            return .tokenRequestFailed(resource: resource, errorCode: errorCode, errorDescription: description.map { redact($0) })
        case .sendTrackingData(let event, let data):
            return .sendTrackingData(event: event, data: data.map { redact($0) })
        case .setMetadataStatus(let metadata, let encrypted, let key, let arguments):
            return .setMetadataStatus(metadata: metadata.map { redact($0) }, encrypted: encrypted, key: key,
                arguments: arguments.map { redact($0) })
        case .status(let dictionary):
            return .status(statusDictionary: redact(dictionary))
        default:
            return callback
        }
    }

    /// A JSON value with each string (and number: a ZIP code may be one) redacted.
    private mutating func redact(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): return .string(redact(text))
        case .number:
            guard let text = value.plainText else { return value }
            let redacted = redact(text)
            return redacted == text ? value : .string(redacted)
        case .bool, .null: return value
        case .array(let items): return .array(items.map { redact($0) })
        case .object(let members): return .object(members.mapValues { redact($0) })
        }
    }

    /// A dictionary's values redacted; a value under a personal name (`session_guid`, `zip`) always is, learned or not.
    private mutating func redact(_ dictionary: [String: String]) -> [String: String] {
        var copy = dictionary
        for (name, value) in dictionary {
            if let field = Field.named(name), !value.isEmpty {
                // The whole value, even one with spaces that no word match would find.
                learn(value, as: field)
                copy[name] = standIn(for: value.trimmingCharacters(in: .whitespaces), as: field)
                found.insert(field)
            } else {
                copy[name] = redact(value)
            }
        }
        return copy
    }

    /// The stand-in of one word: a learned value, or an email address (also percent-encoded, as in a URL).
    private mutating func replacement(for text: String) -> String? {
        if let hit = known[text] {
            found.insert(hit.field)
            return hit.standIn
        }
        let decoded = text.contains("%") ? (text.removingPercentEncoding ?? text) : text
        if decoded != text, let hit = known[decoded] {
            found.insert(hit.field)
            return hit.standIn
        }
        guard Self.isEmail(decoded) else { return nil }
        found.insert(.email)
        return standIn(for: decoded.lowercased(), as: .email)
    }

    /// `name@host.tld`: something before the `@`, a dot after it, and no second `@`.
    static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, let dot = parts[1].lastIndex(of: "."), dot != parts[1].startIndex
        else { return false }
        return parts[1][parts[1].index(after: dot)...].count >= 2
    }

    static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "@"), UInt8(ascii: "+"), UInt8(ascii: "%"):
            true
        default:
            byte >= 0x80
        }
    }
}
