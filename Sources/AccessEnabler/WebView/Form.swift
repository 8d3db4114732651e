import Foundation

/// An HTML form as the headless web view sees it: where it goes, how, its pre-filled fields and its buttons.
public struct Form: Sendable, Equatable {
    public var action: URL
    public var method: String
    /// Hidden and pre-filled inputs.
    public var fields: [String: String]
    /// Every input name (text, password, hidden).
    public var inputNames: [String]
    /// Submit buttons as name/value.
    public var buttons: [(name: String, value: String)]
    public var hasPasswordField: Bool

    public static func == (a: Form, b: Form) -> Bool {
        a.action == b.action && a.method == b.method && a.fields == b.fields && a.inputNames == b.inputNames
            && a.buttons.map(\.name) == b.buttons.map(\.name) && a.buttons.map(\.value) == b.buttons.map(\.value)
    }

    static func parse(_ html: String, base: URL) -> [Form] {
        HTMLText.elements("form", in: html[...]).compactMap { attributes, body in
            let action = HTMLText.attribute("action", in: attributes).map(HTMLText.unescape) ?? base.absoluteString
            guard let url = URL(string: action, relativeTo: base)?.absoluteURL else { return nil }
            var fields: [String: String] = [:]
            var names: [String] = []
            var password = false
            for input in HTMLText.tags("input", in: body) {
                guard let name = HTMLText.attribute("name", in: input) else { continue }
                names.append(name)
                let type = HTMLText.attribute("type", in: input)?.lowercased() ?? "text"
                if type == "password" { password = true }
                if let value = HTMLText.attribute("value", in: input) { fields[name] = HTMLText.unescape(value) }
            }
            let buttons = HTMLText.tags("button", in: body).compactMap { tag -> (String, String)? in
                guard let name = HTMLText.attribute("name", in: tag) else { return nil }
                return (name, HTMLText.attribute("value", in: tag).map(HTMLText.unescape) ?? "")
            }
            let method = HTMLText.attribute("method", in: attributes)?.uppercased() ?? "GET"
            return Form(action: url, method: method, fields: fields, inputNames: names, buttons: buttons, hasPasswordField: password)
        }
    }
}

/// Small text helpers for the headless web view's HTML reading.
enum HTMLText {
    static func matches(_ text: String, _ pattern: String) -> [[String]] {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (1..<match.numberOfRanges).map { index in
                Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
            }
        }
    }

    static func firstMatch(_ text: String, _ pattern: String) -> String? { matches(text, pattern).first?.first }

    // MARK: Tags, read by scanning bytes (the web view reads every page it loads; regular expressions compiled per
    // page cost more than the rest of a login).

    /// The attribute text of each `<name …>` tag in `text` (ASCII case ignored).
    static func tags(_ name: String, in text: Substring) -> [Substring] {
        var found: [Substring] = []
        var rest = text
        while let (attributes, after) = nextTag(name, in: rest) {
            found.append(attributes)
            rest = rest[after...]
        }
        return found
    }

    /// Each `<name …>…</name>` element in `text`: its attribute text and its content (an unclosed element is skipped).
    static func elements(_ name: String, in text: Substring) -> [(attributes: Substring, body: Substring)] {
        var found: [(Substring, Substring)] = []
        var rest = text
        while let (attributes, after) = nextTag(name, in: rest) {
            guard let close = range(of: "</" + name, in: rest[after...]) else { break }
            found.append((attributes, rest[after..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    /// The value of `name="…"` in a tag's attribute text, where `name` is a whole attribute name (after a space,
    /// not the end of `data-name`), ASCII case ignored.
    static func attribute(_ name: String, in tag: Substring) -> String? {
        var rest = tag
        while let match = range(of: name + "=\"", in: rest) {
            let startsWord = match.lowerBound == tag.startIndex || startsAttribute(after: tag.utf8[tag.utf8.index(before: match.lowerBound)])
            if startsWord, let quote = rest[match.upperBound...].utf8.firstIndex(of: UInt8(ascii: "\"")) {
                return String(rest[match.upperBound..<quote])
            }
            rest = rest[match.upperBound...]
        }
        return nil
    }

    /// The next `<name` tag followed by a space, `/` or `>`: its attribute text and where the text after its `>` starts.
    private static func nextTag(_ name: String, in text: Substring) -> (Substring, String.Index)? {
        var rest = text
        while let open = range(of: "<" + name, in: rest) {
            let after = rest[open.upperBound...]
            guard let first = after.utf8.first else { return nil }
            if first == UInt8(ascii: ">") || first == UInt8(ascii: "/") || first == UInt8(ascii: " ") || first == UInt8(ascii: "\n")
                || first == UInt8(ascii: "\t") || first == UInt8(ascii: "\r")
            {
                guard let close = after.utf8.firstIndex(of: UInt8(ascii: ">")) else { return nil }
                return (after[..<close], after.utf8.index(after: close))
            }
            rest = after
        }
        return nil
    }

    /// The first occurrence of the ASCII `needle` in `text`, ignoring ASCII case.
    static func range(of needle: String, in text: Substring) -> Range<String.Index>? {
        let pattern = Array(needle.utf8).map(lowercased)
        guard let head = pattern.first else { return nil }
        let bytes = text.utf8
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if lowercased(bytes[index]) == head {
                var probe = bytes.index(after: index)
                var matched = 1
                while matched < pattern.count, probe != bytes.endIndex, lowercased(bytes[probe]) == pattern[matched] {
                    matched += 1
                    probe = bytes.index(after: probe)
                }
                if matched == pattern.count { return index..<probe }
            }
            index = bytes.index(after: index)
        }
        return nil
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// Whether an attribute name can start after `byte`: white space, or the quote ending the previous value.
    private static func startsAttribute(after byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "/")
    }

    static func unescape(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        return text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    static func formEscape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
