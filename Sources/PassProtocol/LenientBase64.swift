import Foundation

/// Decodes Base64 the way it arrives from real clients: URL-encoded, URL-safe, wrapped or unpadded.
///
/// `device_info` travels Base64 *and* URL-encoded (spec §5.7); a form decoder may already have turned `+`
/// into a space; some clients drop the `=` padding.
enum LenientBase64 {
    /// The bytes encoded in `text`, or `nil` when it is not Base64 even after clean-up.
    static func decode(_ text: String) -> Data? {
        var cleaned = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if cleaned.contains("%"), let decoded = cleaned.removingPercentEncoding {
            cleaned = decoded
        }
        cleaned = String(
            cleaned.compactMap { character -> Character? in
                switch character {
                case " ": "+"  // a form decoder turned "+" into a space
                case "-": "+"
                case "_": "/"
                case "\n", "\r", "\t": nil
                default: character
                }
            }
        )
        let remainder = cleaned.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { cleaned += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: cleaned)
    }
}
