import Foundation

extension PersonalDataRedaction {
    /// `text` with every learned personal value and every email address replaced by its stand-in.
    ///
    /// Values are matched as whole words — a run of letters, digits and `-_.@+%` — so `10001` is replaced in
    /// `["10001"]` but not inside `110001`. A trailing `.` or `-` is not part of the word (the end of a sentence).
    public mutating func redact(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard !known.isEmpty || bytes.contains(UInt8(ascii: "@")) || text.contains("%40") else { return text }
        var output: [UInt8] = []
        var changed = false
        var index = 0
        while index < bytes.count {
            guard Self.isWordByte(bytes[index]) else {
                output.append(bytes[index])
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, Self.isWordByte(bytes[end]) { end += 1 }
            var wordEnd = end
            while wordEnd > index, bytes[wordEnd - 1] == UInt8(ascii: ".") || bytes[wordEnd - 1] == UInt8(ascii: "-") {
                wordEnd -= 1
            }
            if let replacement = replacement(for: bytes[index..<wordEnd]) {
                output.append(contentsOf: replacement.utf8)
                output.append(contentsOf: bytes[wordEnd..<end])
                changed = true
            } else {
                output.append(contentsOf: bytes[index..<end])
            }
            index = end
        }
        return changed ? String(decoding: output, as: UTF8.self) : text
    }

    /// The event with every string redacted (learning from it first): parameters, URL, headers, answer body, API
    /// arguments, callback values, tracking data, messages. Times, IDs of sessions and devices, names of Programmers
    /// and MVPDs are kept.
    public mutating func redact(_ event: EntitlementEvent) -> EntitlementEvent {
        learn(from: event)
        var copy = event
        switch event.kind {
        case .apiCall(let name, let arguments):
            copy.kind = .apiCall(name: name, arguments: redact(arguments))
        case .httpExchange(var exchange):
            exchange.url = redact(exchange.url)
            exchange.parameters = redact(exchange.parameters)
            exchange.headers = redact(exchange.headers)
            exchange.responseBody = exchange.responseBody.map { redact($0) }
            exchange.failure = exchange.failure.map { redact($0) }
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

    /// A dictionary's values redacted; a value under a personal name (`session_guid`, `zip`) always is, learned or not.
    private mutating func redact(_ dictionary: [String: String]) -> [String: String] {
        var copy = dictionary
        for (name, value) in dictionary {
            if let field = Field.named(name), !value.isEmpty {
                learn(value, as: field)
                copy[name] = value.utf8.count < 3 ? standIn(for: value, as: field) : redact(value)
                found.insert(field)
            } else {
                copy[name] = redact(value)
            }
        }
        return copy
    }

    /// The stand-in of one word: a learned value, or an email address (also percent-encoded, as in a URL).
    private mutating func replacement(for word: ArraySlice<UInt8>) -> String? {
        if knownLengths.contains(word.count), let hit = known[String(decoding: word, as: UTF8.self)] {
            found.insert(hit.field)
            return hit.standIn
        }
        let text = String(decoding: word, as: UTF8.self)
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
