import Foundation

/// Small text helpers for reading HTML: the SDK's answers and redaction, and the simulator's headless web view
/// (`package`: shared inside this package, not part of the SDK's public API).
package enum HTMLText {
    package static func matches(_ text: String, _ pattern: String) -> [[String]] {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (1..<match.numberOfRanges).map { index in
                Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
            }
        }
    }

    package static func firstMatch(_ text: String, _ pattern: String) -> String? { matches(text, pattern).first?.first }

    // MARK: Tags, read by scanning bytes (the web view reads every page it loads; regular expressions compiled per
    // page cost more than the rest of a login).

    /// The attribute text of each `<name …>` tag in `text` (ASCII case ignored).
    package static func tags(_ name: String, in text: Substring) -> [Substring] {
        var found: [Substring] = []
        var rest = text
        while let (attributes, after) = nextTag(name, in: rest) {
            found.append(attributes)
            rest = rest[after...]
        }
        return found
    }

    /// Each `<name …>…</name>` element in `text`: its attribute text and its content (an unclosed element is skipped).
    package static func elements(_ name: String, in text: Substring) -> [(attributes: Substring, body: Substring)] {
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
    package static func attribute(_ name: String, in tag: Substring) -> String? {
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
    package static func range(of needle: String, in text: Substring) -> Range<String.Index>? {
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

    package static func unescape(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        return text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    package static func formEscape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
