/// The query of a request target, checked as sent before libmicrohttpd's decoding is read: a `%00` (an encoded NUL)
/// in a name or value is refused with `400`. The decoded arguments are C strings, so `?token=abc%00def` would reach
/// a handler as `token=abc`, silently cut short: better a clear refusal than an answer about another value.
enum QueryCheck {
    /// Why the query of `target` is refused, or nil. Allocates nothing (it runs on every request).
    ///
    /// A `%` is never part of another escape (it is not a hex digit), so every `%00` in the raw query decodes to NUL.
    static func problem(_ target: String) -> HTTPError? {
        var inQuery = false
        var (previous, beforePrevious): (UInt8, UInt8) = (0, 0)
        for byte in target.utf8 {
            if byte == UInt8(ascii: "#") { return nil }
            if !inQuery {
                inQuery = byte == UInt8(ascii: "?")
                continue
            }
            if byte == UInt8(ascii: "0"), previous == UInt8(ascii: "0"), beforePrevious == UInt8(ascii: "%") {
                return HTTPError(.badRequest, code: "nul_in_query", message: "The query holds an encoded NUL (%00).",
                    detail: "Query names and values may not contain NUL; send the value without it.")
            }
            (beforePrevious, previous) = (previous, byte)
        }
        return nil
    }
}
