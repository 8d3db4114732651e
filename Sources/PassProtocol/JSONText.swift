/// JSON text written by hand for the hot paths (events, media token answers): strings escaped exactly as
/// `JSONEncoder` escapes them with `.withoutEscapingSlashes`, so hand-written and encoded JSON are byte-equal.
public enum JSONText {
    /// Appends `value` as a JSON string literal, quotes included.
    public static func appendString(_ value: String, to output: inout String) {
        output += "\""
        let utf8 = value.utf8
        var plainStart = utf8.startIndex
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == 0x22 || byte == 0x5C || byte < 0x20 {
                output += String(value[plainStart..<index])
                switch byte {
                case 0x22: output += "\\\""
                case 0x5C: output += "\\\\"
                case 0x08: output += "\\b"
                case 0x0C: output += "\\f"
                case 0x0A: output += "\\n"
                case 0x0D: output += "\\r"
                case 0x09: output += "\\t"
                default:
                    let hex = String(byte, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
                plainStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        output += String(value[plainStart..<utf8.endIndex])
        output += "\""
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
