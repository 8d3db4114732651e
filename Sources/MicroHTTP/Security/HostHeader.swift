/// A request's `Host` header read whole (RFC 9110 §7.2: `uri-host [ ":" port ]`), the one place its syntax is judged.
///
/// - the name is a DNS name or IPv4 address (letters, digits, `-`, `.`, `_`, `~`: RFC 3986's unreserved bytes; its
///   sub-delimiters such as `,` and escapes are no host a browser sends), or an IPv6 address in brackets (`[::1]`);
/// - a port, when there is a colon, is all digits and in 1...65535 (`host:`, `host:0`, `host:+80`, `host:80x` are not);
/// - no user-info (`user@host`), spaces, slashes or anything else.
///
/// The server refuses a request whose `Host` does not read this way, or that has several, with `400`
/// (``RequestHeadCheck``), so everything that compares host names (the console's and the backend's allow-lists) reads
/// a `Host` through ``init(_:)``.
public struct HostHeader: Sendable, Equatable {
    /// The host name, lower-case; an IPv6 address keeps its brackets (`[::1]`).
    public var name: String
    /// The port, when given.
    public var port: Int?

    /// A host `name` (lower-case, IPv6 in brackets) and `port`.
    public init(name: String, port: Int?) {
        self.name = name
        self.port = port
    }

    /// `value` read as a `Host` header; nil when it is not one.
    public init?(_ value: String) {
        let bytes = Self.trimmed(value)
        guard let (nameEnd, port) = Self.parse(bytes) else { return nil }
        name = String(decoding: bytes[..<nameEnd], as: UTF8.self).lowercased()
        self.port = port
    }

    /// Why `value` is not a `Host` header, in words for an error's detail; nil when it is one. Allocates nothing for a
    /// good value (it runs on every request).
    static func problem(_ value: String) -> String? {
        if parse(trimmed(value)) != nil { return nil }
        if value.utf8.contains(UInt8(ascii: "@")) { return "a Host may not carry user-info (user@host)" }
        return "a Host is a name or address with an optional port of 1-65535 digits"
    }

    /// The end of the name and the port, or nil when `bytes` is not a `Host`.
    private static func parse(_ bytes: Substring.UTF8View) -> (String.Index, Int?)? {
        var index = bytes.startIndex
        guard index < bytes.endIndex else { return nil }
        if bytes[index] == UInt8(ascii: "[") {
            // IP-literal: hex digits, colons and dots (an embedded IPv4) between brackets.
            index = bytes.index(after: index)
            var digits = 0
            while index < bytes.endIndex, bytes[index] != UInt8(ascii: "]") {
                let byte = bytes[index]
                guard byte.hexDigitValue != nil || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".") else { return nil }
                digits += 1
                index = bytes.index(after: index)
            }
            guard index < bytes.endIndex, digits >= 2 else { return nil }
            index = bytes.index(after: index)
        } else {
            while index < bytes.endIndex, bytes[index] != UInt8(ascii: ":") {
                guard isNameByte(bytes[index]) else { return nil }
                index = bytes.index(after: index)
            }
            guard index > bytes.startIndex else { return nil }
        }
        let nameEnd = index
        guard index < bytes.endIndex else { return (nameEnd, nil) }
        guard bytes[index] == UInt8(ascii: ":") else { return nil }
        index = bytes.index(after: index)
        var port = 0, digits = 0
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 5 else { return nil }
            port = port * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            index = bytes.index(after: index)
        }
        guard digits > 0, (1...65535).contains(port) else { return nil }
        return (nameEnd, port)
    }

    /// `value` without the spaces and tabs around it (optional whitespace, not part of the field's value).
    private static func trimmed(_ value: String) -> Substring.UTF8View {
        let utf8 = value.utf8
        var (start, end) = (utf8.startIndex, utf8.endIndex)
        while start < end, utf8[start] == 0x20 || utf8[start] == 0x09 { start = utf8.index(after: start) }
        while start < end {
            let last = utf8.index(before: end)
            guard utf8[last] == 0x20 || utf8[last] == 0x09 else { break }
            end = last
        }
        return value[start..<end].utf8
    }

    /// RFC 3986 unreserved bytes.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
