import DecodingWords
import Foundation

/// One HTTP request as the server received it: method, decoded path, query, headers, cookies and body.
///
/// Values are decoded once by the server; handlers read them through the accessors below. Header names are
/// compared case-insensitively.
public struct Request: Sendable {
    /// The HTTP method in upper case (`GET`, `POST`, …).
    public var method: String
    /// The percent-decoded path, without the query string (`/api/v1/authorize`).
    public var path: String
    /// Query arguments in the order received; a name may repeat (`resource_id=a&resource_id=b`).
    public var queryItems: [(name: String, value: String)]
    /// Request headers in the order received.
    public var headers: [(name: String, value: String)] { didSet { formItems = Self.form(headers, body) } }
    /// The raw request body (empty when none).
    public var body: Data { didSet { formItems = Self.form(headers, body) } }
    /// The client's IP address as text, or `""` when unknown.
    public var remoteAddress: String
    /// Values captured by `{name}` segments of the matched route pattern.
    public var pathParameters: [String: String] = [:]
    /// When set, every query, form, header and JSON body read is written down (tests enumerating a route's inputs).
    public var readLog: RequestReadLog?

    /// Creates a request; servers and in-process tests use this.
    public init(
        method: String, path: String, queryItems: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [], body: Data = Data(), remoteAddress: String = ""
    ) {
        self.method = method.uppercased()
        self.path = path
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        formItems = Self.form(headers, body)
    }

    /// The first value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        readLog?.record(.header, name)
        return headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// The first value of a query argument.
    public func query(_ name: String) -> String? {
        readLog?.record(.query, name)
        return queryItems.first { $0.name == name }?.value
    }

    /// Every value of a query argument, in order.
    public func queryAll(_ name: String) -> [String] {
        readLog?.record(.query, name)
        return queryItems.filter { $0.name == name }.map(\.value)
    }

    /// Cookies sent in the `Cookie` header(s).
    public var cookies: [String: String] {
        var result: [String: String] = [:]
        for (name, value) in headers where name.equalsIgnoringASCIICase("Cookie") {
            for pair in value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                result[parts[0].trimmingCharacters(in: .whitespaces)] = String(parts[1]).trimmingCharacters(
                    in: .whitespaces)
            }
        }
        return result
    }

    /// The body parsed as `application/x-www-form-urlencoded` (empty unless that is the content type). Decoded once,
    /// when the request is made (and again if its body or headers change): handlers read several parameters, and
    /// decoding a form holding a token on every read was most of an authorization's CPU in the backend.
    public private(set) var formItems: [(name: String, value: String)] = []

    private static func form(_ headers: [(name: String, value: String)], _ body: Data) -> [(name: String, value: String)] {
        guard !body.isEmpty, let type = headers.first(where: { $0.name.equalsIgnoringASCIICase("Content-Type") })?.value,
            type.lowercased().hasPrefix("application/x-www-form-urlencoded")
        else { return [] }
        return FormEncoding.decode(String(decoding: body, as: UTF8.self))
    }

    /// A parameter from the query string or, for form posts, the body (body wins), as web servers merge them.
    public func parameter(_ name: String) -> String? {
        readLog?.record(.parameter, name)
        return formItems.first { $0.name == name }?.value ?? query(name)
    }

    /// Every value of a parameter from the form body and the query string.
    public func parameterAll(_ name: String) -> [String] {
        readLog?.record(.parameter, name)
        return formItems.filter { $0.name == name }.map(\.value) + queryAll(name)
    }

    /// Decodes a JSON body.
    ///
    /// - Throws: ``HTTPError`` `400` with the decoder's reason when the body is not valid JSON for `type`, or
    ///   `400 invalid_parameter` when a ``ValidatedBody`` finds a number out of range.
    public func decodeJSON<T: Decodable>(_ type: T.Type) throws -> T {
        readLog?.recordBody(type)
        let value: T
        do {
            value = try JSONDecoder().decode(type, from: body)
        } catch {
            throw HTTPError(.badRequest, code: "invalid_json", message: "The request body is not valid JSON.",
                detail: DecodingError.words(error))
        }
        if let checked = value as? any ValidatedBody { try checked.validate() }
        return value
    }
}

/// `application/x-www-form-urlencoded` encoding and decoding.
public enum FormEncoding {
    /// Splits `a=1&b=x+y` into decoded pairs (`+` is a space).
    public static func decode(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = unescape(parts[0]), !name.isEmpty else { return nil }
            return (name, parts.count > 1 ? unescape(parts[1]) ?? "" : "")
        }
    }

    /// Joins pairs into a form body, percent-encoding everything but unreserved characters.
    public static func encode(_ items: [(String, String)]) -> String {
        items.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// Percent-encodes a component for a query string or form body.
    public static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `+` as a space and `%XX` escapes decoded, byte by byte; nil for a malformed escape or bytes that are not
    /// UTF-8 (as Foundation's `removingPercentEncoding`, which was several times slower on token-sized values).
    private static func unescape(_ part: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(part.utf8.count)
        var iterator = part.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(\.hexDigitValue), let low = iterator.next().flatMap(\.hexDigitValue) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension String {
    /// Equality ignoring ASCII case, for header names (tokens are ASCII): byte-wise, without Foundation's
    /// Unicode-aware `caseInsensitiveCompare`, which showed up in per-request profiles.
    public func equalsIgnoringASCIICase(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var a = utf8.makeIterator()
        var b = other.utf8.makeIterator()
        while true {
            switch (a.next(), b.next()) {
            case (nil, nil): return true
            case (let x?, let y?):
                if x != y {
                    let lower = x | 0x20
                    guard lower == y | 0x20, lower >= 0x61, lower <= 0x7A else { return false }
                }
            default: return false
            }
        }
    }
}
