/// Something that answers requests: a ``Router``, or an application wrapping one.
///
/// The server first offers each request to ``respondInline(to:)`` on its own network thread; when that returns
/// `nil` the server parks the connection and offers it to ``respondLater(to:reply:)`` (an answer that a completion
/// callback delivers, such as a database read's), then, when that declines, awaits ``respond(to:)`` on the Swift
/// concurrency pool. Slow handlers never hold a network thread.
public protocol HTTPResponder: Sendable {
    /// Answers at once, on the server's network thread, when the answer is cheap and never blocks
    /// (static files, prebuilt answers); returns `nil` to defer to ``respond(to:)``.
    func respondInline(to request: Request) -> Response?
    /// Starts answering a request whose answer comes from a completion callback (a database read handing its
    /// result to a queue of its own), without a Swift task: returns `true` and calls `reply` exactly once, from any
    /// thread, possibly before returning; returns `false` (calling nothing) to defer to ``respond(to:)``. Runs on
    /// the server's network thread with the connection parked: must not block.
    func respondLater(to request: Request, reply: @escaping @Sendable (Response) -> Void) -> Bool
    /// Answers a request; may suspend (latency injection, I/O).
    func respond(to request: Request) async -> Response
    /// Judges a request on its head alone — method, normalised path, query and headers; `body` is empty — on the
    /// network thread, before any of its body is read: an answer returned here is sent at once (the body is never
    /// read, the connection closed after), so access checks belong here. Must be cheap and never block.
    func judgeHead(_ head: Request) -> Response?
    /// The largest body accepted for this request (nil: the server's ``HTTPServerConfiguration/maxBodySize``); a
    /// bigger `Content-Length` answers `413` before reading, and a chunked body is dropped at the cap.
    func bodyLimit(for head: Request) -> Int?
    /// The server's own refusal of a request to `target` (a malformed path or head, a body too large), as this
    /// responder's clients expect errors written (a protocol with its own error format); `refusal` is the server's
    /// ``HTTPError``. Runs on the network thread: must be cheap.
    func shapeRefusal(_ refusal: HTTPError, target: String) -> Response
}

extension HTTPResponder {
    /// Defers every request to ``respond(to:)``.
    public func respondInline(to request: Request) -> Response? { nil }
    /// Defers every request to ``respond(to:)``.
    public func respondLater(to request: Request, reply: @escaping @Sendable (Response) -> Void) -> Bool { false }
    /// Lets every head through.
    public func judgeHead(_ head: Request) -> Response? { nil }
    /// The server's cap.
    public func bodyLimit(for head: Request) -> Int? { nil }
    /// The server's JSON error.
    public func shapeRefusal(_ refusal: HTTPError, target: String) -> Response { refusal.response }
}
