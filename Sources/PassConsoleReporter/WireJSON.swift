import Foundation

/// A JSON value as the console's wire writes it: object keys in byte order (what `JSONEncoder`'s `.sortedKeys` does
/// on Linux and the SDK's own writer does everywhere), `/` not escaped, integers without a fraction.
///
/// Written by hand rather than by `JSONEncoder`: Foundation on Apple platforms sorts keys case-insensitively, so the
/// same event would be other bytes on a phone than in the console's tests.
enum WireJSON: Sendable, Equatable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case array([WireJSON])
    case object([String: WireJSON])

    /// An optional string: the string, or `null`.
    static func optional(_ text: String?) -> WireJSON { text.map(WireJSON.string) ?? .null }

    /// The value as JSON text.
    var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    func write(to output: inout String) {
        switch self {
        case .string(let text): Self.writeString(text, to: &output)
        case .int(let number): output += String(number)
        case .double(let number): output += Self.number(number)
        case .bool(let flag): output += flag ? "true" : "false"
        case .null: output += "null"
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                item.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, key) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { output += "," }
                Self.writeString(key, to: &output)
                output += ":"
                members[key]!.write(to: &output)
            }
            output += "}"
        }
    }

    /// The shortest text that reads back exactly, without a trailing `.0`; `null` for NaN and infinities, which JSON
    /// cannot hold.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// A JSON string literal: `"` and `\` escaped, control characters as `\n`-style or `\u00XX` escapes.
    static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
