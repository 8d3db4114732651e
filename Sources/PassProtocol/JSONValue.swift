import Foundation

/// Any JSON value, for payloads whose shape is open: user metadata items (spec §6.5).
///
/// ```swift
/// let data: [String: JSONValue] = ["zip": ["10001", "10002"], "maxRating": ["MPAA": "R"], "householdID": "h1"]
/// ```
public enum JSONValue: Codable, Sendable, Hashable {
    /// A string.
    case string(String)
    /// A number; JSON does not tell integers from fractions.
    case number(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// Decodes whatever JSON value is there.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as the matching JSON value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The value as plain text: strings as they are, integral numbers without a fraction, `null` as `""`.
    ///
    /// Arrays and objects have no plain form and give `nil`.
    public var plainText: String? {
        switch self {
        case .string(let value): value
        case .number(let value):
            value.rounded() == value && abs(value) < 9_007_199_254_740_992 ? String(Int64(value)) : String(value)
        case .bool(let value): String(value)
        case .null: ""
        case .array, .object: nil
        }
    }

    /// The value as one line of text: ``plainText`` for a scalar, compact JSON (keys sorted) for an array or object.
    public var compactText: String {
        if let plainText { return plainText }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// Writes this value as the content of elements named `name`.
    ///
    /// Scalars become `<name>text</name>`, objects nest one element per key (sorted), and arrays repeat
    /// `<name>` once per item, the usual XML rendering of a JSON list.
    func write(named name: String, into xml: inout XMLWriter) {
        switch self {
        case .array(let items):
            for item in items { item.write(named: name, into: &xml) }
        case .object(let members):
            xml.element(name) { xml in
                for key in members.keys.sorted() { members[key]?.write(named: key, into: &xml) }
            }
        default:
            xml.element(name, plainText ?? "")
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// A string value from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A number value from an integer literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A number value from a float literal.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A boolean value from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array value from a literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object value from a literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// `null` from `nil`.
    public init(nilLiteral: ()) { self = .null }
}
