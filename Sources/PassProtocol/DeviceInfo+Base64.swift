import Foundation

extension DeviceInfo {
    /// Decodes the `device_info` / `X-Device-Info` value: Base64 JSON, possibly URL-encoded or unpadded.
    ///
    /// - Throws: ``PayloadFormatError`` when the value is not Base64 or not a JSON object.
    public static func decode(base64: String) throws(PayloadFormatError) -> DeviceInfo {
        guard let data = LenientBase64.decode(base64) else {
            throw PayloadFormatError("device_info is not Base64")
        }
        do {
            return try JSONDecoder().decode(DeviceInfo.self, from: data)
        } catch {
            throw PayloadFormatError("device_info is not a client-information JSON object (\(error))")
        }
    }

    /// The value for `device_info` / `X-Device-Info`: Base64 of the JSON with sorted keys, unset keys omitted.
    ///
    /// Standard Base64; URL-encode it when putting it in a query string.
    public func base64Encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct of strings, numbers and booleans cannot fail.
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return data.base64EncodedString()
    }
}
