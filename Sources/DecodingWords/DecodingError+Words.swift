/// A decoding failure as a person reads it: what is wrong and where (`requestors.REF30.mvpds.Dish`), never Swift's
/// dump of the error (`typeMismatch(Swift.Int, Swift.DecodingError.Context(codingPath: [CodingKeys(stringValue: …`).
/// Every message that reports a file, a body or a line that could not be decoded says it this way: a storage file, an
/// import, a request body, an ingested event.
extension DecodingError {
    /// `'requestors' is missing`, `requestors.REF30.a should be a whole number, not text`, `it is not valid JSON`.
    public var inWords: String {
        switch self {
        case .keyNotFound(let key, let context):
            let place = Self.path(context.codingPath)
            return "'\(key.stringValue)' is missing" + (place.isEmpty ? "" : " in \(place)")
        case .typeMismatch(let type, let context):
            return "\(Self.subject(context.codingPath)) should be \(Self.kind(type))\(Self.found(context.debugDescription))"
        case .valueNotFound(let type, let context):
            return "\(Self.subject(context.codingPath)) is empty (null); it should be \(Self.kind(type))"
        case .dataCorrupted(let context):
            guard !context.codingPath.isEmpty else { return "it is not valid JSON" }
            return "\(Self.subject(context.codingPath)) is not valid: \(context.debugDescription)"
        @unknown default:
            return "it cannot be read"
        }
    }

    /// Any error in words: a decoding error as ``inWords``, another by its own description.
    public static func words(_ error: any Error) -> String {
        (error as? DecodingError)?.inWords ?? String(describing: error)
    }

    /// `requestors.REF30.mvpds[0]`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue.hasPrefix("Index") || key.stringValue == String(index) {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    static func subject(_ codingPath: [any CodingKey]) -> String {
        let place = path(codingPath)
        return place.isEmpty ? "the whole document" : place
    }

    /// What a Swift type is in JSON's words.
    static func kind(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type: "a whole number"
        case is Double.Type, is Float.Type: "a number"
        case is Bool.Type: "true or false"
        case is String.Type: "text"
        default: String(describing: type).hasPrefix("Array") ? "a list" : "an object"
        }
    }

    /// `, not text` from Foundation's "Expected to decode Int but found a string instead.".
    static func found(_ description: String) -> String {
        guard let range = description.firstRange(of: "but found ") else { return "" }
        var what = description[range.upperBound...]
        if let end = what.firstRange(of: " instead") { what = what[..<end.lowerBound] }
        let words = ["a string": "text", "number": "a number", "a number": "a number", "a dictionary": "an object", "an array": "a list",
                     "bool": "true or false", "a bool": "true or false"]
        return ", not " + (words[String(what)] ?? String(what))
    }
}
