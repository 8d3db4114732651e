import Foundation

/// Decoding helpers that accept the loose typing of real clients: numbers as strings and the reverse.
extension KeyedDecodingContainer {
    /// A string, or a number/boolean rendered as text; `nil` when absent or `null`.
    func lenientString(_ key: Key) throws -> String? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let text = try? decode(String.self, forKey: key) { return text }
        if let number = try? decode(Int64.self, forKey: key) { return String(number) }
        if let number = try? decode(Double.self, forKey: key) { return String(number) }
        if let flag = try? decode(Bool.self, forKey: key) { return String(flag) }
        throw DecodingError.typeMismatch(
            String.self,
            .init(codingPath: codingPath + [key], debugDescription: "expected a string or a number")
        )
    }

    /// An integer, or a string holding one; `nil` when absent or `null`.
    func lenientInt(_ key: Key) throws -> Int? {
        guard let text = try lenientString(key) else { return nil }
        if let value = Int(text) ?? Double(text).flatMap({ Int(exactly: $0.rounded()) }) { return value }
        throw DecodingError.typeMismatch(
            Int.self,
            .init(codingPath: codingPath + [key], debugDescription: "\"\(text)\" is not an integer")
        )
    }

    /// A boolean, or the strings `true`/`false`/`1`/`0`; `nil` when absent or `null`.
    func lenientBool(_ key: Key) throws -> Bool? {
        guard let text = try lenientString(key) else { return nil }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default:
            throw DecodingError.typeMismatch(
                Bool.self,
                .init(codingPath: codingPath + [key], debugDescription: "\"\(text)\" is not a boolean")
            )
        }
    }
}
