extension StringProtocol {
    /// Whether this path starts with `prefix`, byte for byte. `String.hasPrefix` compares characters: a combining mark
    /// right after a slash (`/api/v2/\u{1AD8}…`) joins the slash into one character, so `hasPrefix("/api/v2/")` is
    /// false for a path whose bytes start with `/api/v2/` (found by schemathesis: its 404 came in another API's error
    /// format). Paths are judged on bytes.
    public func hasPathPrefix(_ prefix: String) -> Bool { utf8.starts(with: prefix.utf8) }
}
