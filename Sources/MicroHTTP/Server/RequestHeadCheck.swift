/// Framing rules checked on a request's raw header lines before anything else reads them: a request whose length
/// two parsers could read differently (request smuggling) is refused rather than guessed at.
///
/// - a header name that is not an HTTP token (`Transfer-Encoding :`, with a space before the colon) → `400`;
/// - `Content-Length` that is not a number (`-1`, `+5`), has more than 18 digits, or several that disagree (`1, 5`)
///   → `400`;
/// - `Content-Length` and `Transfer-Encoding` together → `400`;
/// - any `Transfer-Encoding` but plain `chunked` (`xchunked`, `gzip, chunked`) → `501`;
/// - a `Host` that is not `name[:port]` (``HostHeader``: user-info, a port that is not 1-65535) → `400`, and more
///   than one `Host` → `400` (which one would the allow-lists judge?).
enum RequestHeadCheck {
    static func problem(_ headers: [(name: String, value: String)]) -> HTTPError? {
        var lengths: Set<String> = []
        var codings: [String] = []
        var hosts = 0
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
                return HTTPError(.badRequest, code: "malformed_header", message: "A header line is malformed.",
                    detail: "Header names are tokens with no spaces before the colon: '\(name.prefix(64))'")
            }
            if name.equalsIgnoringASCIICase("Content-Length") {
                for part in value.split(separator: ",", omittingEmptySubsequences: false) {
                    let number = part.trimmingSpaces
                    guard !number.isEmpty, number.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                        return HTTPError(.badRequest, code: "bad_content_length", message: "Content-Length is not a number.",
                            detail: "Content-Length: \(value.prefix(64))")
                    }
                    let significant = number.drop { $0 == "0" }
                    // Past 18 digits a length overflows the parsers (ours and libmicrohttpd's, which answered its own
                    // HTML error besides ours): no body is that long.
                    guard significant.utf8.count <= 18 else {
                        return HTTPError(.badRequest, code: "bad_content_length", message: "Content-Length is out of range.",
                            detail: "Content-Length: \(value.prefix(64))")
                    }
                    lengths.insert(String(significant))
                }
            } else if name.equalsIgnoringASCIICase("Transfer-Encoding") {
                codings += value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces.lowercased() }
            } else if name.equalsIgnoringASCIICase("Host") {
                hosts += 1
                guard hosts == 1 else {
                    return HTTPError(.badRequest, code: "duplicate_host", message: "The request has more than one Host header.")
                }
                if let reason = HostHeader.problem(value) {
                    return HTTPError(.badRequest, code: "malformed_host", message: "The Host header is malformed.",
                        detail: "\(reason): '\(value.prefix(64))'")
                }
            }
        }
        if lengths.count > 1 {
            return HTTPError(.badRequest, code: "conflicting_content_length",
                message: "The request has Content-Length headers that disagree.", detail: lengths.sorted().joined(separator: ", "))
        }
        if !codings.isEmpty {
            guard codings == ["chunked"] else {
                return HTTPError(.notImplemented, code: "unsupported_transfer_encoding",
                    message: "Only Transfer-Encoding: chunked is supported.", detail: codings.joined(separator: ", "))
            }
            if !lengths.isEmpty {
                return HTTPError(.badRequest, code: "conflicting_framing",
                    message: "The request has both Content-Length and Transfer-Encoding.")
            }
        }
        return nil
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (a walk over the bytes: the reversed-and-rebuilt version of this
    /// was most of the check's cost, on every request).
    fileprivate var trimmingSpaces: Substring {
        let utf8 = self.utf8
        var (start, end) = (utf8.startIndex, utf8.endIndex)
        while start < end, utf8[start] == 0x20 || utf8[start] == 0x09 { start = utf8.index(after: start) }
        while start < end {
            let last = utf8.index(before: end)
            guard utf8[last] == 0x20 || utf8[last] == 0x09 else { break }
            end = last
        }
        return self[start..<end]
    }
}
