import Crypto
import Foundation

extension V2 {
    /// The device an `AP-Device-Identifier: fingerprint <Base64>` header names (the decoded identifier), or nil when
    /// the header is not in that form: the type is `fingerprint`, the value Base64 of UTF-8 text of at most 768 bytes
    /// with no line breaks or NUL. The backend refuses such a header; a recorder reads the device from it.
    public static func deviceIdentifier(_ header: String) -> String? {
        let parts = header.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "fingerprint", parts[1].utf8.count <= 1024,
            let data = Data(base64Encoded: String(parts[1])), !data.isEmpty, let id = String(data: data, encoding: .utf8),
            // Printable ASCII has neither; anything else is read character by character.
            id.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) || !id.contains(where: { $0.isNewline || $0 == "\0" })
        else { return nil }
        return id
    }

    /// The header's name.
    public static let deviceIdentifierHeader = "AP-Device-Identifier"
}

extension V2 {
    /// A short name for a software statement that does not reveal it: the first 12 hex digits of its SHA-256.
    public static func statementDigest(_ statement: String) -> String {
        String(SHA256.hash(data: Data(statement.utf8)).hexString.prefix(12))
    }
}
