import Foundation

/// The XML body of a signed token: the part after the second `<signatureInfo>` delimiter.
///
/// ``AuthNToken``, ``AuthZToken`` and ``MediaToken`` conform; ``SignedToken`` is generic over it.
public protocol TokenBody: Sendable, Equatable {
    /// The name of the body's root element, e.g. `simpleAuthenticationToken`.
    static var rootElement: String { get }

    /// The body as compact XML, values escaped. This exact text is what gets signed.
    var xmlBody: String { get }

    /// Reads a body from its XML text, indented or compact.
    ///
    /// - Throws: ``TokenFormatError`` when the text is not XML, has another root, or lacks a required element.
    static func parse(body: String) throws(TokenFormatError) -> Self
}

extension XMLNode {
    /// Parses `body` and checks that its root element is `rootElement`.
    static func tokenRoot(_ body: String, named rootElement: String) throws(TokenFormatError) -> XMLNode {
        let root: XMLNode
        do {
            root = try XMLNode.parse(body)
        } catch {
            throw TokenFormatError("\(rootElement) body is \(error.reason)")
        }
        guard root.name == rootElement else {
            throw TokenFormatError("expected a <\(rootElement)> body, found <\(root.name)>")
        }
        return root
    }

    /// The text of the required child `name`; a token without it is malformed.
    func required(_ name: String) throws(TokenFormatError) -> String {
        guard let value = text(of: name) else {
            throw TokenFormatError("missing element \(name) in <\(self.name)>")
        }
        return value
    }

    /// The required child `name` read as a token date (``TokenDate``).
    func requiredDate(_ name: String) throws(TokenFormatError) -> Date {
        let text = try required(name)
        guard let date = TokenDate.parse(text) else {
            throw TokenFormatError("\(name) is not a token date: \"\(text)\"")
        }
        return date
    }

    /// The required child `name` read as a decimal 64-bit integer.
    func requiredInteger(_ name: String) throws(TokenFormatError) -> Int64 {
        let text = try required(name)
        guard let value = Int64(text) else {
            throw TokenFormatError("\(name) is not an integer: \"\(text)\"")
        }
        return value
    }

    /// The device fingerprint, at `simpleTokenDeviceID/simpleTokenFingerprint` (or directly under the root).
    func requiredFingerprint() throws(TokenFormatError) -> String {
        if let fingerprint = child("simpleTokenDeviceID")?.text(of: "simpleTokenFingerprint")
            ?? text(of: "simpleTokenFingerprint")
        {
            return fingerprint
        }
        throw TokenFormatError("missing element simpleTokenDeviceID/simpleTokenFingerprint in <\(name)>")
    }
}

extension XMLWriter {
    /// Writes the device-binding element shared by authN and authZ tokens.
    mutating func fingerprint(_ value: String) {
        element("simpleTokenDeviceID") { $0.element("simpleTokenFingerprint", value) }
    }
}
