/// The one spelling of a request path that routing and access checks both see.
///
/// `normalize` takes the request target as sent (`//api/./%61pi/../x?y=1`) and returns the path alone, with every
/// `%XX` decoded, empty and `.` segments dropped and `..` resolved (never above `/`): `/api/x`. A target that is not
/// an absolute path, has a broken escape, encodes a NUL or another control character, or is not UTF-8 once decoded
/// is refused, so two spellings of one path can never be judged differently.
public enum PathNormalizer {
    /// Why a target was refused.
    public enum Failure: Error, Sendable, Equatable {
        case notAbsolute
        case badEscape
        case controlCharacter
        case notUTF8
    }

    /// The normalised path of `target` (query and fragment dropped), or why it is refused.
    public static func normalize(_ target: String) -> Result<String, Failure> {
        if let path = alreadyNormal(target) { return .success(path) }
        return normalizeFully(target)
    }

    /// ``normalize(_:)`` without the shortcut for a path already in normal form (``alreadyNormal(_:)``).
    static func normalizeFully(_ target: String) -> Result<String, Failure> {
        var bytes = Array(target.utf8)
        if let end = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            bytes.removeSubrange(end...)
        }
        if bytes == [UInt8(ascii: "*")] { return .success("*") }
        // absolute-form (`http://host/path`), as proxies send it: the path is what follows the authority.
        for scheme in ["http://", "https://"] where bytes.count >= scheme.utf8.count
            && String(decoding: bytes.prefix(scheme.utf8.count), as: UTF8.self).lowercased() == scheme
        {
            let rest = bytes.dropFirst(scheme.utf8.count)
            bytes = rest.firstIndex(of: UInt8(ascii: "/")).map { Array(rest[$0...]) } ?? [UInt8(ascii: "/")]
        }
        guard bytes.first == UInt8(ascii: "/") else { return .failure(.notAbsolute) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            var byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = bytes[index + 1].hexDigitValue, let low = bytes[index + 2].hexDigitValue
                else { return .failure(.badEscape) }
                byte = high << 4 | low
                index += 2
            }
            if byte < 0x20 || byte == 0x7F { return .failure(.controlCharacter) }
            decoded.append(byte)
            index += 1
        }
        guard let text = String(validating: decoded, as: UTF8.self) else { return .failure(.notUTF8) }
        var segments: [Substring] = []
        for segment in text.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        var path = "/" + segments.joined(separator: "/")
        let lastSegment = text.split(separator: "/", omittingEmptySubsequences: false).last
        if path != "/", text.hasSuffix("/") || lastSegment == "." || lastSegment == ".." { path += "/" }
        return .success(path)
    }

    /// `target`'s path when it is already in normal form — it starts with `/` and has no escape, no byte outside
    /// printable ASCII, no empty segment and no `.` or `..` segment — so that the full pass would return it unchanged;
    /// `nil` otherwise (the full pass decides). One scan, no copy: every request's path is judged more than once.
    static func alreadyNormal(_ target: String) -> String? {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        var length = 0
        // The current segment: its length, and whether it is dots only (`.` and `..` are not normal).
        var segment = 0, dotsOnly = true
        for byte in target.utf8 {
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "%") else { return nil }
            if byte == slash {
                if length > 0 && (segment == 0 || (dotsOnly && segment <= 2)) { return nil }
                segment = 0
                dotsOnly = true
            } else {
                guard length > 0 else { return nil }
                segment += 1
                dotsOnly = dotsOnly && byte == dot
            }
            length += 1
        }
        guard length > 0, !(segment > 0 && dotsOnly && segment <= 2) else { return nil }
        return length == target.utf8.count ? target : String(decoding: target.utf8.prefix(length), as: UTF8.self)
    }

    /// The first segment of a normalised path as a guard should compare it: lower-cased, trailing dots and spaces
    /// dropped (`/API./x` → `api`), so a spelling a file system or proxy might treat alike is judged alike.
    public static func guardedHead(of path: String) -> String {
        // The first non-empty segment, found in the bytes (no array of segments per call: every request asks).
        let slash = UInt8(ascii: "/")
        let utf8 = path.utf8
        guard let start = utf8.firstIndex(where: { $0 != slash }) else { return "" }
        let end = utf8[start...].firstIndex(of: slash) ?? utf8.endIndex
        var trimmed = Substring(path[start..<end].lowercased())
        while let last = trimmed.last, last == "." || last == " " { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

}
