import Foundation

/// An HTTP response a handler returns: a status, headers and one of three kinds of body.
public struct Response: Sendable {
    /// What the server sends after the headers.
    public enum Body: Sendable {
        /// Bytes held in memory.
        case data(Data)
        /// A file sent with `sendfile` (the server opens it; `size` bytes from offset 0).
        case file(path: String, size: UInt64)
        /// A Server-Sent Events stream that stays open until the client leaves or the server stops.
        case eventStream(EventStreamSubscription)
        /// No answer at all: the connection is closed (a recording proxy's rule that drops a request, to see how a
        /// client copes with a service that goes silent).
        case closeWithoutAnswer
    }

    /// A response that closes the connection without answering.
    public static var closeWithoutAnswer: Response { Response(status: HTTPStatus(444), body: .closeWithoutAnswer) }

    /// The status code.
    public var status: HTTPStatus { didSet { prepared = nil } }
    /// Response headers, in order; a name may repeat (`Set-Cookie`).
    public var headers: [(name: String, value: String)] { didSet { prepared = nil } }
    /// The body.
    public var body: Body { didSet { prepared = nil } }
    /// The same answer built once for libmicrohttpd (a cached static file); changing the status, the headers or the
    /// body drops it.
    public var prepared: PreparedResponse?

    /// Creates a response.
    public init(status: HTTPStatus = .ok, headers: [(name: String, value: String)] = [], body: Body = .data(Data())) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// The body bytes when held in memory (empty for files and streams).
    public var bodyData: Data {
        if case .data(let data) = body { return data }
        return Data()
    }

    /// Adds a header, keeping any already present with the same name.
    public mutating func addHeader(_ name: String, _ value: String) {
        headers.append((name, value))
    }

    /// Adds a `Set-Cookie` header.
    ///
    /// - Parameters:
    ///   - maxAge: Seconds until expiry; `0` deletes the cookie; `nil` makes a session cookie.
    public mutating func setCookie(
        _ name: String, _ value: String, path: String = "/", maxAge: Int? = nil, httpOnly: Bool = true,
        sameSite: String = "Lax"
    ) {
        var cookie = "\(name)=\(value); Path=\(path); SameSite=\(sameSite)"
        if let maxAge { cookie += "; Max-Age=\(maxAge)" }
        if httpOnly { cookie += "; HttpOnly" }
        addHeader("Set-Cookie", cookie)
    }

    // MARK: - Convenience constructors

    /// A body of text with the given content type.
    public static func text(_ text: String, status: HTTPStatus = .ok, contentType: String = "text/plain; charset=utf-8")
        -> Response
    {
        Response(status: status, headers: [("Content-Type", contentType)], body: .data(Data(text.utf8)))
    }

    /// An HTML page.
    public static func html(_ html: String, status: HTTPStatus = .ok) -> Response {
        text(html, status: status, contentType: "text/html; charset=utf-8")
    }

    /// An XML document.
    public static func xml(_ xml: String, status: HTTPStatus = .ok) -> Response {
        text(xml, status: status, contentType: "application/xml; charset=utf-8")
    }

    /// Raw JSON bytes.
    public static func json(data: Data, status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: [("Content-Type", "application/json")], body: .data(data))
    }

    /// A value encoded as JSON (sorted keys, so answers are stable).
    public static func json<T: Encodable>(_ value: T, status: HTTPStatus = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return json(data: try encoder.encode(value), status: status)
        } catch {
            return HTTPError(.internalServerError, code: "encoding_failed", message: "The answer could not be encoded.")
                .response
        }
    }

    /// A Server-Sent Events answer streaming `subscription` until the client leaves or it is closed.
    public static func eventStream(_ subscription: EventStreamSubscription) -> Response {
        Response(
            headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no")],
            body: .eventStream(subscription))
    }

    /// A redirect (`302 Found` unless told otherwise) to `location`, which may use any scheme.
    public static func redirect(to location: String, status: HTTPStatus = .found) -> Response {
        Response(status: status, headers: [("Location", location), ("Content-Length", "0")])
    }

    /// An empty answer (`204 No Content` unless told otherwise).
    public static func empty(status: HTTPStatus = .noContent) -> Response {
        Response(status: status)
    }
}
