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
                output.append(escape(byte))
                plainStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        output.append(contentsOf: value[plainStart..<utf8.endIndex])
        output.append("\"")
    }

    /// ``appendString(_:to:)`` writing bytes (the same escapes): the history encodes each event's view as bytes.
    public static func appendString(_ value: String, to output: inout [UInt8]) {
        output.append(0x22)
        // On the string's own bytes (a small string's are copied to the stack): scanning them through `String.UTF8View`
        // indexes cost more than the copy.
        if value.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &output) }) == nil {
            Array(value.utf8).withUnsafeBufferPointer { appendEscaped($0, to: &output) }
        }
        output.append(0x22)
    }

    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var plainStart = 0
        for index in bytes.indices where needsEscape(bytes[index]) {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainStart..<index]))
            output.append(contentsOf: escape(bytes[index]).utf8)
            plainStart = index + 1
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainStart...]))
    }

    /// How a JSON string literal writes `byte`, one that ``needsEscape(_:)``.
    static func escape(_ byte: UInt8) -> String {
        switch byte {
        case 0x22: return "\\\""
        case 0x5C: return "\\\\"
        case 0x08: return "\\b"
        case 0x0C: return "\\f"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        default:
            let hex = String(byte, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
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
