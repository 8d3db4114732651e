import Foundation

/// A REST v1 answer body, available as JSON and XML (spec §5.4.1: `format=json|xml`, suffix or `Accept`).
///
/// JSON field names are exactly the documented ones; ``xml()`` renders the same fields as compact XML.
public protocol RESTPayload: Codable, Sendable, Equatable {
    /// The payload as compact XML.
    func xml() -> String
    /// The payload as JSON (a default encodes it with `JSONEncoder`; hot answers write it by hand).
    func json() -> Data
}

extension RESTPayload {
    /// The payload as JSON, keys sorted, `nil` fields omitted, slashes unescaped.
    public func json() -> Data {
        // Every payload holds strings, numbers, booleans and nested payloads only: encoding cannot fail.
        (try? RESTJSON.encoder.encode(self)) ?? Data("{}".utf8)
    }

    /// Reads the payload from JSON.
    ///
    /// - Throws: ``PayloadFormatError`` when a required field is missing or has the wrong type.
    public static func decode(json: Data) throws(PayloadFormatError) -> Self {
        do {
            return try JSONDecoder().decode(Self.self, from: json)
        } catch {
            throw PayloadFormatError("\(Self.self) JSON is invalid (\(error))")
        }
    }
}

/// The shared JSON settings of REST payloads.
enum RESTJSON {
    /// `JSONEncoder` is a `Sendable` class, but configure a fresh one per use to keep it simple and safe.
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
