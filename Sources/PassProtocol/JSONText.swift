/// JSON text written by hand for the hot paths (events, media token answers): strings escaped exactly as
/// `JSONEncoder` escapes them with `.withoutEscapingSlashes`, so hand-written and encoded JSON are byte-equal.
public enum JSONText {
    /// Appends `value` as a JSON string literal, quotes included.
    ///
    /// Most values need no escape: they are appended whole after one byte scan. Otherwise the plain runs between
    /// escapes are appended as substrings (making a `String` of each run allocated past 15 bytes).
    public static func appendString(_ value: String, to output: inout String) {
        output.append("\"")
        guard let first = value.utf8.firstIndex(where: needsEscape) else {
            output.append(value)
            output.append("\"")
            return
        }
        let utf8 = value.utf8
        var plainStart = utf8.startIndex
        var index = first
        while index != utf8.endIndex {
            let byte = utf8[index]
            if needsEscape(byte) {
                output.append(contentsOf: value[plainStart..<index])
                switch byte {
                case 0x22: output.append("\\\"")
                case 0x5C: output.append("\\\\")
                case 0x08: output.append("\\b")
                case 0x0C: output.append("\\f")
                case 0x0A: output.append("\\n")
                case 0x0D: output.append("\\r")
                case 0x09: output.append("\\t")
                default:
                    let hex = String(byte, radix: 16)
                    output.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                }
                plainStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        output.append(contentsOf: value[plainStart..<utf8.endIndex])
        output.append("\"")
    }

    /// `"`, `\` and control characters: what a JSON string literal escapes (`/` is left alone).
    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte == 0x22 || byte == 0x5C || byte < 0x20
    }

    /// An object of string fields, keys sorted (as `JSONEncoder` with `.sortedKeys` writes it).
    public static func object(_ fields: KeyValuePairs<String, String>) -> String {
        var output = "{"
        output.reserveCapacity(64 + fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 6 })
        for (index, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { output += "," }
            appendString(field.key, to: &output)
            output += ":"
            appendString(field.value, to: &output)
        }
        output += "}"
        return output
    }
}
