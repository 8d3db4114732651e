/// XML's whitespace (space, tab, CR, LF; XML 1.0 §2.3), trimmed in plain Swift: Foundation's
/// `trimmingCharacters(in:)` on Linux bridges through NSString and cost a visible part of every token parse.
enum XMLWhitespace {
    /// `text` without surrounding XML whitespace.
    static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else {
            return text[text.endIndex...]
        }
        return text[first...last]
    }

    /// `text` without surrounding XML whitespace, as a `String`.
    static func trimmed(_ text: String) -> String {
        String(trimmed(text[...]))
    }
}
