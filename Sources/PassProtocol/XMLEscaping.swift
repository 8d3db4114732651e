import Foundation

/// Escapes and unescapes the five predefined XML entities.
///
/// Used for every value written into a token body or an answer document, and by the backend to wrap a whole
/// token HTML-escaped inside `<authnToken>`/`<authzToken>` (spec §5.2.4).
///
/// ```swift
/// XMLEscaping.escape("<signatureInfo>a&b")    // "&lt;signatureInfo&gt;a&amp;b"
/// XMLEscaping.unescape("&lt;signatureInfo&gt;") // "<signatureInfo>"
/// ```
public enum XMLEscaping: Sendable {
    /// Returns `text` with `&`, `<`, `>`, `"` and `'` replaced by their entity references.
    public static func escape(_ text: String) -> String {
        // Most values (IDs, GUIDs, times) have nothing to escape: one scan of the bytes, no copy.
        guard text.utf8.contains(where: isSpecial) else { return text }
        var result = [UInt8]()
        result.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): result += "&amp;".utf8
            case UInt8(ascii: "<"): result += "&lt;".utf8
            case UInt8(ascii: ">"): result += "&gt;".utf8
            case UInt8(ascii: "\""): result += "&quot;".utf8
            case UInt8(ascii: "'"): result += "&apos;".utf8
            default: result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The five characters with a predefined entity (all ASCII, so never part of a multi-byte character).
    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }

    /// Returns `text` with the five predefined entities and numeric character references decoded.
    ///
    /// Unknown or malformed references are left as they are, so unescaping never fails.
    public static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            rest = rest[ampersand...]
            if let (decoded, length) = entity(at: rest) {
                result += decoded
                rest = rest.dropFirst(length)
            } else {
                result += "&"
                rest = rest.dropFirst()
            }
        }
        return result + rest
    }

    /// Replaces every `&` that does not start an entity or character reference with `&amp;`.
    ///
    /// Token bodies from other implementations may carry a bare `&` inside a resource ID; the Android SDK
    /// escapes those before parsing (spec §6.2), and so do we.
    static func escapeBareAmpersands(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            rest = rest[ampersand...]
            result += referenceLength(at: rest) == nil ? "&amp;" : "&"
            rest = rest.dropFirst()
        }
        return result + rest
    }

    /// Decodes the reference starting at `text` (which begins with `&`), returning the text and length used.
    private static func entity(at text: Substring) -> (String, Int)? {
        guard let length = referenceLength(at: text) else { return nil }
        let name = text.dropFirst().prefix(length - 2)
        switch name {
        case "amp": return ("&", length)
        case "lt": return ("<", length)
        case "gt": return (">", length)
        case "quot": return ("\"", length)
        case "apos": return ("'", length)
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value =
                digits.hasPrefix("x") || digits.hasPrefix("X")
                ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            guard let value, let scalar = Unicode.Scalar(value) else { return nil }
            return (String(Character(scalar)), length)
        }
    }

    /// The length of a well-formed `&name;` or `&#…;` reference at the start of `text`, including both ends.
    private static func referenceLength(at text: Substring) -> Int? {
        var length = 1
        for character in text.dropFirst() {
            length += 1
            if character == ";" { return length > 2 ? length : nil }
            guard character.isASCII, character.isLetter || character.isNumber || character == "#" else { return nil }
            if length > 12 { return nil }
        }
        return nil
    }
}
