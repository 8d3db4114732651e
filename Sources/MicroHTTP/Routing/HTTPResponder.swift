/// Something that answers requests: a ``Router``, or an application wrapping one.
///
/// The server first offers each request to ``respondInline(to:)`` on its own network thread; when that returns
/// `nil` the server parks the connection and awaits ``respond(to:)`` on the Swift concurrency pool, so slow
/// handlers never hold a network thread.
public protocol HTTPResponder: Sendable {
    /// Answers at once, on the server's network thread, when the answer is cheap and never blocks
    /// (static files, prebuilt answers); returns `nil` to defer to ``respond(to:)``.
    func respondInline(to request: Request) -> Response?
    /// Answers a request; may suspend (latency injection, I/O).
    func respond(to request: Request) async -> Response
}

extension HTTPResponder {
    /// Defers every request to ``respond(to:)``.
    public func respondInline(to request: Request) -> Response? { nil }
}
