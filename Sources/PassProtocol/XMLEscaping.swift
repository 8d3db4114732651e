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
    /// Unknown or malformed references are left as they are, so unescaping never fails. Works on the UTF-8 bytes
    /// (a token wrapped in an answer holds hundreds of references; every byte of a reference is ASCII, which never
    /// occurs inside a multi-byte character).
    public static func unescape(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.contains(ampersand) else { return nil }
            var result = [UInt8]()
            result.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == ampersand, let length = referenceLength(bytes, at: index),
                    let decoded = decode(UnsafeBufferPointer(rebasing: bytes[(index + 1)..<(index + length - 1)]))
                {
                    result += decoded.utf8
                    index += length
                } else {
                    result.append(byte)
                    index += 1
                }
            }
            return String(decoding: result, as: UTF8.self)
        } ?? text
    }

    /// Replaces every `&` that does not start an entity or character reference with `&amp;`.
    ///
    /// Token bodies from other implementations may carry a bare `&` inside a resource ID; the Android SDK
    /// escapes those before parsing (spec §6.2), and so do we.
    static func escapeBareAmpersands(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.contains(ampersand) else { return nil }
            var result = [UInt8]()
            result.reserveCapacity(bytes.count + 16)
            var bare = false
            for index in bytes.indices {
                result.append(bytes[index])
                if bytes[index] == ampersand, referenceLength(bytes, at: index) == nil {
                    result += "amp;".utf8
                    bare = true
                }
            }
            return bare ? String(decoding: result, as: UTF8.self) : nil
        } ?? text
    }

    private static let ampersand = UInt8(ascii: "&")

    /// The text of the reference named `name` (what stands between `&` and `;`), or nil when it names nothing.
    private static func decode(_ name: UnsafeBufferPointer<UInt8>) -> String? {
        switch String(decoding: name, as: UTF8.self) {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case let name:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            guard let value, let scalar = Unicode.Scalar(value) else { return nil }
            return String(Character(scalar))
        }
    }

    /// The length of a well-formed `&name;` or `&#…;` reference starting at `start` (an `&`), both ends included:
    /// ASCII letters, digits and `#` only, at most 13 bytes in all.
    private static func referenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count, index - start <= 12 {
            let byte = bytes[index]
            if byte == UInt8(ascii: ";") { return index - start > 1 ? index - start + 1 : nil }
            let isName = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "#")
            guard isName else { return nil }
            index += 1
        }
        return nil
    }
}
