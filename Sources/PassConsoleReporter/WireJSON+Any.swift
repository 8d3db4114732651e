import Foundation

extension WireJSON {
    /// Any value an app's SDK hands its delegate, as JSON: strings, numbers, booleans, arrays, dictionaries and
    /// `NSNull` as themselves (Objective-C's `NSNumber`, `NSArray`, `NSDictionary` too); a value that is `Encodable`
    /// as what `JSONEncoder` makes of it; anything else as its description. Never fails: a debug reporter shows what it
    /// got rather than dropping it.
    init(any value: Any?) {
        guard let value = value.flatMap(Self.unwrapped), !(value is NSNull) else {
            self = .null
            return
        }
        // An Objective-C number (what the vendor's SDK hands over) before the Swift casts, which would all succeed on it.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            self = WireJSON(number: number)
            return
        }
        switch value {
        case let text as String: self = .string(text)
        case let text as Substring: self = .string(String(text))
        case let flag as Bool: self = .bool(flag)
        case let number as Int: self = .int(number)
        case let number as any BinaryInteger: self = Int(exactly: number).map(WireJSON.int) ?? .string(String(describing: number))
        case let number as Double: self = .double(number)
        case let number as Float: self = .double(Double(number))
        case let url as URL: self = .string(url.absoluteString)
        case let date as Date: self = .string(WireDate.format(date))
        case let array as [Any]: self = .array(array.map { WireJSON(any: $0) })
        case let dictionary as [AnyHashable: Any]:
            self = .object(Dictionary(dictionary.map { (Self.key($0.key), WireJSON(any: $0.value)) }) { first, _ in first })
        case let encodable as any Encodable: self = Self.encoded(encodable) ?? .string(String(describing: value))
        default: self = .string(String(describing: value))
        }
    }

    /// A dictionary key as text.
    static func key(_ key: AnyHashable) -> String {
        (key.base as? String) ?? String(describing: key.base)
    }

    /// A number as JSON: a boolean one (Objective-C's `BOOL`, type `c`) as `true`/`false`, a whole one as an integer.
    init(number: NSNumber) {
        if String(cString: number.objCType) == "c", number.intValue == 0 || number.intValue == 1 {
            self = .bool(number.boolValue)
            return
        }
        let double = number.doubleValue
        self = double.rounded() == double && abs(double) < 1e15 ? .int(number.intValue) : .double(double)
    }

    /// A value `JSONSerialization` read.
    init(foundation object: Any) {
        switch object {
        case is NSNull: self = .null
        case let text as String: self = .string(text)
        case let number as NSNumber: self = WireJSON(number: number)
        case let array as [Any]: self = .array(array.map { WireJSON(foundation: $0) })
        case let dictionary as [String: Any]: self = .object(dictionary.mapValues { WireJSON(foundation: $0) })
        default: self = .string(String(describing: object))
        }
    }

    /// What `JSONEncoder` makes of `value`, read back as JSON.
    private static func encoded(_ value: any Encodable) -> WireJSON? {
        guard let data = try? JSONEncoder().encode(value),
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return nil }
        return WireJSON(foundation: object)
    }

    /// `value` without the `Optional` around it when it is one handed over as `Any` (an `Any?` inside an `[Any]`).
    private static func unwrapped(_ value: Any) -> Any? {
        guard let optional = value as? any OptionalValue else { return value }
        return optional.wrapped.flatMap(unwrapped)
    }
}

/// An `Optional` seen as `Any`.
private protocol OptionalValue {
    var wrapped: Any? { get }
}

extension Optional: OptionalValue {
    var wrapped: Any? {
        switch self {
        case .some(let value): value
        case .none: nil
        }
    }
}
