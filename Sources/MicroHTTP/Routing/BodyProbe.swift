import Foundation

/// The fields a `Decodable` type reads, found by running its `init(from:)` against a decoder that answers every
/// question with a placeholder and writes down the key paths asked for. Dictionaries keyed by data (no fixed keys)
/// and fields after one the placeholder cannot satisfy (an enum's raw value) are not found.
public enum BodyProbe {
    /// A leaf of the body: its path (keys, and `0` for an array element) and what it holds.
    public struct Field: Sendable, Hashable {
        /// The JSON type a leaf holds.
        public enum Kind: String, Sendable { case string, number, bool }
        /// The keys from the root to the leaf (`0` for an array element).
        public var path: [String]
        /// What the leaf holds.
        public var kind: Kind
    }

    /// The fields `type` decodes.
    public static func fields<T: Decodable>(of type: T.Type) -> [Field] {
        let recorder = Recorder()
        _ = try? T(from: ProbeDecoder(recorder: recorder, codingPath: []))
        return recorder.fields
    }

    final class Recorder {
        var fields: [Field] = []
        func leaf(_ path: [any CodingKey], _ kind: Field.Kind) {
            let field = Field(path: path.map { $0.intValue.map(String.init) ?? $0.stringValue }, kind: kind)
            if !fields.contains(field) { fields.append(field) }
        }
    }

    struct Index: CodingKey {
        var intValue: Int? { 0 }
        var stringValue: String { "0" }
        init() {}
        init?(stringValue: String) { nil }
        init?(intValue: Int) { nil }
    }

    struct TooDeep: Error {}

    /// A placeholder for `T`, recording `T`'s fields under `path`.
    static func placeholder<T: Decodable>(_ type: T.Type, _ recorder: Recorder, _ path: [any CodingKey]) throws -> T {
        guard path.count < 8 else { throw TooDeep() }
        switch type {
        case is String.Type: recorder.leaf(path, .string); return "" as! T
        case is Bool.Type: recorder.leaf(path, .bool); return false as! T
        case is UUID.Type: recorder.leaf(path, .string); return UUID() as! T
        case is Date.Type: recorder.leaf(path, .string); return Date() as! T
        case is URL.Type: recorder.leaf(path, .string); return URL(string: "http://127.0.0.1/")! as! T
        case is Data.Type: recorder.leaf(path, .string); return Data() as! T
        default:
            if let number = type as? any (Decodable & Numeric).Type {
                recorder.leaf(path, .number)
                return zero(number) as! T
            }
            return try T(from: ProbeDecoder(recorder: recorder, codingPath: path))
        }
    }

    private static func zero<N: Numeric>(_ type: N.Type) -> N { 0 }

    struct ProbeDecoder: Decoder {
        let recorder: Recorder
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(Keyed<Key>(recorder: recorder, codingPath: codingPath))
        }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(recorder: recorder, codingPath: codingPath) }
        func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(recorder: recorder, codingPath: codingPath) }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let recorder: Recorder
        let codingPath: [any CodingKey]
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try placeholder(type, recorder, codingPath + [key])
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            KeyedDecodingContainer(Keyed<NestedKey>(recorder: recorder, codingPath: codingPath + [key]))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            Unkeyed(recorder: recorder, codingPath: codingPath + [key])
        }
        func superDecoder() throws -> any Decoder { ProbeDecoder(recorder: recorder, codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { ProbeDecoder(recorder: recorder, codingPath: codingPath + [key]) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let recorder: Recorder
        let codingPath: [any CodingKey]
        var count: Int? { 1 }
        var currentIndex = 0
        var isAtEnd: Bool { currentIndex > 0 }
        init(recorder: Recorder, codingPath: [any CodingKey]) {
            self.recorder = recorder
            self.codingPath = codingPath
        }
        mutating func decodeNil() throws -> Bool { false }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            currentIndex += 1
            return try placeholder(type, recorder, codingPath + [Index()])
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            currentIndex += 1
            return KeyedDecodingContainer(Keyed<NestedKey>(recorder: recorder, codingPath: codingPath + [Index()]))
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            currentIndex += 1
            return Unkeyed(recorder: recorder, codingPath: codingPath + [Index()])
        }
        mutating func superDecoder() throws -> any Decoder { ProbeDecoder(recorder: recorder, codingPath: codingPath) }
    }

    struct Single: SingleValueDecodingContainer {
        let recorder: Recorder
        let codingPath: [any CodingKey]
        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try placeholder(type, recorder, codingPath) }
    }
}
