import Foundation

/// A token in its transport form: `<signatureInfo>SIGNATURE<signatureInfo>BODY`.
///
/// The opening tag is used twice as a delimiter, exactly as seed 002 §Format shows; the whole string is not
/// well-formed XML. `SIGNATURE` is the Base64 DER ECDSA-SHA256 signature over the UTF-8 bytes of `BODY`.
///
/// ```swift
/// let signed = SignedToken.sign(authN, with: key)
/// let text = signed.serialized              // "<signatureInfo>MEUCIQ…<signatureInfo><simpleAuthenticationToken>…"
/// let back = try SignedToken<AuthNToken>.parse(text)
/// back.verify(with: key.publicKey)          // true
/// ```
public struct SignedToken<Body: TokenBody>: Sendable, Equatable {
    /// The delimiter, `<signatureInfo>`.
    public static var delimiter: String { "<signatureInfo>" }

    /// The Base64 signature as received or produced.
    public let signature: String
    /// The decoded body.
    public let body: Body
    /// The body text exactly as signed or received; verification runs over this, not over a re-rendering.
    public let rawBody: String

    /// Creates a token from its parts without checking anything; prefer ``sign(_:with:)`` or ``parse(_:)``.
    public init(signature: String, body: Body, rawBody: String) {
        self.signature = signature
        self.body = body
        self.rawBody = rawBody
    }

    /// The transport form: delimiter, signature, delimiter, body.
    public var serialized: String {
        Self.delimiter + signature + Self.delimiter + rawBody
    }

    /// The transport form Base64-encoded, as REST puts it in `serializedToken` (starts `PHNpZ25hdHVyZUluZm8+`).
    public var base64Serialized: String {
        Data(serialized.utf8).base64EncodedString()
    }

    /// Signs `body` (its ``TokenBody/xmlBody``) with `key`.
    public static func sign(_ body: Body, with key: TokenSigningKey) -> SignedToken<Body> {
        let text = body.xmlBody
        return SignedToken(signature: key.signatureBase64(for: text), body: body, rawBody: text)
    }

    /// Whether the signature is valid for the received body text under `key`.
    ///
    /// A body changed in any character, or a signature made with another key, fails.
    public func verify(with key: TokenVerificationKey) -> Bool {
        key.isValidSignature(signature, for: rawBody)
    }

    /// Reads the transport form.
    ///
    /// Surrounding whitespace is ignored, around the whole string and around signature and body. A closing
    /// `</signatureInfo>` as the second delimiter is tolerated. HTML-escaped input is not: unescape it first
    /// (``XMLEscaping/unescape(_:)``), as the `<authnToken>` answers require.
    ///
    /// - Throws: ``TokenFormatError`` when the delimiters, signature or body are missing or malformed.
    public static func parse(_ serialized: String) throws(TokenFormatError) -> SignedToken<Body> {
        // Plain-Swift trimming and searching: Foundation's on Linux cost most of a parse for multi-KB tokens.
        let text = XMLWhitespace.trimmed(serialized[...])
        guard text.hasPrefix(delimiter) else {
            throw TokenFormatError("token does not start with \(delimiter)")
        }
        let rest = text.dropFirst(delimiter.count)
        guard let second = rest.firstRange(of: delimiter) ?? rest.firstRange(of: "</signatureInfo>") else {
            throw TokenFormatError("token has only one \(delimiter) delimiter; expected two")
        }
        let signature = String(XMLWhitespace.trimmed(rest[..<second.lowerBound]))
        let rawBody = String(XMLWhitespace.trimmed(rest[second.upperBound...]))
        guard !signature.isEmpty else { throw TokenFormatError("token signature is empty") }
        guard !rawBody.isEmpty else { throw TokenFormatError("token body is empty") }
        return SignedToken(signature: signature, body: try Body.parse(body: rawBody), rawBody: rawBody)
    }

    /// Reads the Base64 transport form (REST `serializedToken`), tolerating URL-encoding and missing padding.
    ///
    /// - Throws: ``TokenFormatError`` when the text is not Base64 of a token.
    public static func parse(base64: String) throws(TokenFormatError) -> SignedToken<Body> {
        guard let data = LenientBase64.decode(base64), let text = String(data: data, encoding: .utf8) else {
            throw TokenFormatError("token is neither raw nor Base64 of a UTF-8 token")
        }
        return try parse(text)
    }
}

extension SignedToken: Codable where Body: Codable {}
