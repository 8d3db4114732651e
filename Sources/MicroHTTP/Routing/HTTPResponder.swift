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
    /// Judges a request on its head alone — method, normalised path, query and headers; `body` is empty — on the
    /// network thread, before any of its body is read: an answer returned here is sent at once (the body is never
    /// read, the connection closed after), so access checks belong here. Must be cheap and never block.
    func judgeHead(_ head: Request) -> Response?
    /// The largest body accepted for this request (nil: the server's ``HTTPServerConfiguration/maxBodySize``); a
    /// bigger `Content-Length` answers `413` before reading, and a chunked body is dropped at the cap.
    func bodyLimit(for head: Request) -> Int?
}

extension HTTPResponder {
    /// Defers every request to ``respond(to:)``.
    public func respondInline(to request: Request) -> Response? { nil }
    /// Lets every head through.
    public func judgeHead(_ head: Request) -> Response? { nil }
    /// The server's cap.
    public func bodyLimit(for head: Request) -> Int? { nil }
}
