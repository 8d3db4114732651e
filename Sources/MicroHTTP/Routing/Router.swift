import Foundation
import Locking

/// Routes requests by method and path pattern to handlers.
///
/// Patterns are literal segments, `{name}` segments captured into ``Request/pathParameters``, and a final
/// `{name...}` that captures the rest of the path. Unknown paths answer `404`, a known path with another method
/// answers `405` with `Allow`, both as JSON ``HTTPError`` bodies.
///
/// ```swift
/// var router = Router()
/// router.get("/hello/{name}") { request in .text("Hello \(request.pathParameters["name"]!)") }
/// router.mount(StaticFiles(root: "Public"), at: "/")
/// ```
public struct Router: HTTPResponder {
    /// A handler that may suspend; runs on the concurrency pool.
    public typealias Handler = @Sendable (Request) async throws -> Response
    /// A handler that answers at once on the network thread; must not block.
    public typealias InlineHandler = @Sendable (Request) throws -> Response
    /// A handler that starts its answer on the network thread and hands it to the callback once, from any thread:
    /// for an answer a completion callback delivers (a database read's), without a task. It must not block;
    /// what it throws, and a failure it hands over, is answered by ``errorRenderer``.
    public typealias LaterHandler = @Sendable (Request, _ reply: @escaping @Sendable (Result<Response, any Error>) -> Void) throws -> Void

    enum Action: Sendable {
        case deferred(Handler)
        case inline(InlineHandler)
        case later(LaterHandler)
    }

    struct Route: Sendable {
        var method: String
        var text: String
        var pattern: RoutePattern
        var action: Action
    }

    private var routes: [Route] = []
    /// Indexes into ``routes`` by a pattern's segment count (patterns without a trailing `{name...}`), in registration
    /// order, and the routes with a trailing capture: a request is tried only against the routes of its shape (the
    /// backend's ~80 routes tried one by one were 7.5% of a REST v2 decision's CPU, measured with `perf record`).
    private var routesBySegmentCount: [Int: [Int]] = [:]
    private var restRoutes: [Int] = []
    /// Every route's first path segment when all of them start with a literal (`nil` otherwise): a path whose
    /// first segment is none of them goes straight to the mounts (a static file skips the route table).
    private var heads: Set<String>? = []
    private var mounts: [(prefix: String, files: StaticFiles)] = []
    /// Renders errors thrown by handlers; the default renders ``HTTPError`` as JSON and anything else as a 500.
    public var errorRenderer: @Sendable (any Error, Request) -> Response = Router.defaultErrorResponse

    /// Creates an empty router.
    public init() {}

    /// Adds a route for `method` and `pattern`.
    public mutating func on(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        add(Route(method: method.uppercased(), text: pattern, pattern: RoutePattern(pattern), action: .deferred(handler)))
    }

    /// Adds a route answered inline on the network thread (cheap, non-blocking handlers only).
    public mutating func on(_ method: String, _ pattern: String, inline handler: @escaping InlineHandler) {
        add(Route(method: method.uppercased(), text: pattern, pattern: RoutePattern(pattern), action: .inline(handler)))
    }

    /// Adds a route answered through a completion callback (see ``LaterHandler``): no task, no thread of the
    /// concurrency pool between the request and its answer.
    public mutating func on(_ method: String, _ pattern: String, later handler: @escaping LaterHandler) {
        add(Route(method: method.uppercased(), text: pattern, pattern: RoutePattern(pattern), action: .later(handler)))
    }

    private mutating func add(_ route: Route) {
        if case .rest? = route.pattern.segments.last {
            restRoutes.append(routes.count)
        } else {
            routesBySegmentCount[route.pattern.segments.count, default: []].append(routes.count)
        }
        routes.append(route)
        if case .literal(let head)? = route.pattern.segments.first { heads?.insert(head) } else { heads = nil }
    }

    /// A registered route: its method and pattern as given (`GET /api/sessions/{id}`).
    public struct RouteDescription: Sendable, Hashable {
        /// `GET`, `POST`, ….
        public var method: String
        /// The path pattern, with `{name}` for a path parameter.
        public var pattern: String

        /// Describes the route `method pattern`.
        public init(method: String, pattern: String) {
            self.method = method
            self.pattern = pattern
        }
    }

    /// Every registered route, in the order added (mounts excluded): tests walk them so a new route is covered.
    public var registeredRoutes: [RouteDescription] {
        routes.map { RouteDescription(method: $0.method, pattern: $0.pattern.text) }
    }

    /// Adds a `GET` route (which also answers `HEAD`).
    public mutating func get(_ pattern: String, _ handler: @escaping Handler) { on("GET", pattern, handler) }
    /// Adds a `GET` route (which also answers `HEAD`) answered through a completion callback (``LaterHandler``).
    public mutating func get(_ pattern: String, later handler: @escaping LaterHandler) { on("GET", pattern, later: handler) }
    /// Adds a `POST` route.
    public mutating func post(_ pattern: String, _ handler: @escaping Handler) { on("POST", pattern, handler) }
    /// Adds a `DELETE` route.
    public mutating func delete(_ pattern: String, _ handler: @escaping Handler) { on("DELETE", pattern, handler) }
    /// Adds a `PUT` route.
    public mutating func put(_ pattern: String, _ handler: @escaping Handler) { on("PUT", pattern, handler) }

    /// Serves files from `files` for `GET`/`HEAD` paths under `prefix` that no route matched.
    public mutating func mount(_ files: StaticFiles, at prefix: String) {
        mounts.append((prefix.hasSuffix("/") ? prefix : prefix + "/", files))
    }

    enum Match {
        case found(Action, [String: String])
        case staticFiles(StaticFiles, String)
        case methodNotAllowed([String])
        case notFound
    }

    func match(_ request: Request) -> Match {
        var allowed: [String] = []
        if let heads, let head = Self.firstSegment(of: request.path), !heads.contains(String(head)) {
            return mounted(request)
        }
        let segments = RoutePattern.segments(of: request.path)
        var found: Match?
        forEachCandidate(segmentCount: segments.count) { route in
            guard let parameters = route.pattern.match(segments) else { return true }
            if route.method == request.method || (request.method == "HEAD" && route.method == "GET") {
                found = .found(route.action, parameters)
                return false
            }
            allowed.append(route.method)
            return true
        }
        if let found { return found }
        if !allowed.isEmpty { return .methodNotAllowed(allowed) }
        return mounted(request)
    }

    /// Offers `body` the routes a path of `segmentCount` segments may match, in registration order (the first
    /// match wins), until it returns `false`.
    private func forEachCandidate(segmentCount: Int, _ body: (Route) -> Bool) {
        let exact = routesBySegmentCount[segmentCount] ?? []
        var (next, nextRest) = (0, 0)
        while next < exact.count || nextRest < restRoutes.count {
            let index: Int
            if nextRest == restRoutes.count || (next < exact.count && exact[next] < restRoutes[nextRest]) {
                index = exact[next]
                next += 1
            } else {
                index = restRoutes[nextRest]
                nextRest += 1
            }
            guard body(routes[index]) else { return }
        }
    }

    /// The pattern of the route `request` matches (`/api/sessions/{id}`), `static` for a file of a mount, `nil` when
    /// nothing answers it: a label of bounded cardinality for metrics (never the raw path).
    public func routeLabel(for request: Request) -> String? {
        if let heads, let head = Self.firstSegment(of: request.path), !heads.contains(String(head)) {
            if case .staticFiles = mounted(request) { return "static" }
            return nil
        }
        let segments = RoutePattern.segments(of: request.path)
        var label: String?
        forEachCandidate(segmentCount: segments.count) { route in
            guard route.pattern.match(segments) != nil else { return true }
            label = route.pattern.text
            return false
        }
        if let label { return label }
        if case .staticFiles = mounted(request) { return "static" }
        return nil
    }

    /// The mount serving `request` (GET and HEAD only), or not found.
    private func mounted(_ request: Request) -> Match {
        if request.method == "GET" || request.method == "HEAD" {
            for mount in mounts where Self.path(request.path, isUnder: mount.prefix) {
                return .staticFiles(mount.files, String(request.path.dropFirst(mount.prefix.count - 1)))
            }
        }
        return .notFound
    }

    /// `app.js` of `/app.js`, `api` of `/api/events`; nil for `/` (a scan of the bytes: no array per request).
    static func firstSegment(of path: String) -> Substring? {
        let slash = UInt8(ascii: "/")
        let utf8 = path.utf8
        guard let start = utf8.firstIndex(where: { $0 != slash }) else { return nil }
        let end = utf8[start...].firstIndex(of: slash) ?? utf8.endIndex
        return path[start..<end]
    }

    /// Whether `path + "/"` starts with `prefix` (which ends with `/`), without building `path + "/"`.
    static func path(_ path: String, isUnder prefix: String) -> Bool {
        if path.hasPrefix(prefix) { return true }
        return path.utf8.count + 1 == prefix.utf8.count && prefix.hasPrefix(path)
    }

    /// The answer of the inline route `request` matches; nil for anything else (deferred routes, files, errors),
    /// which ``respond(to:)`` then answers. One route lookup.
    public func respondWithInlineRoute(to request: Request) -> Response? {
        guard case .found(.inline(let handler), let parameters) = match(request) else { return nil }
        return run(handler, parameters, request)
    }

    private func run(_ handler: InlineHandler, _ parameters: [String: String], _ request: Request) -> Response {
        var request = request
        request.pathParameters = parameters
        do { return try handler(request) } catch { return errorRenderer(error, request) }
    }

    /// Answers on the server's thread: inline routes, static files and refusals (404, 405); `nil` for a deferred
    /// route, which ``respond(to:)`` runs.
    public func respondInline(to request: Request) -> Response? {
        switch match(request) {
        case .found(.inline(let handler), let parameters): return run(handler, parameters, request)
        case .found(.deferred, _), .found(.later, _): return nil
        case .staticFiles(let files, let relative): return files.response(for: relative, request: request)
        // Through the error renderer too: an application with its own error format writes these in it.
        case .methodNotAllowed(let allowed): return errorRenderer(Self.methodNotAllowedError(allowed, request), request)
        case .notFound: return errorRenderer(Self.notFoundError(request), request)
        }
    }

    /// Starts the answer of the callback route `request` matches (``on(_:_:later:)``) and returns `true`: `reply`
    /// then gets it once, from whichever thread finishes it. `false` for anything else, which ``respondInline(to:)``
    /// or ``respond(to:)`` answers.
    public func respondLater(to request: Request, reply: @escaping @Sendable (Response) -> Void) -> Bool {
        guard case .found(.later(let handler), let parameters) = match(request) else { return false }
        var request = request
        request.pathParameters = parameters
        let once = ReplyOnce(reply)
        let renderer = errorRenderer
        let routed = request
        do {
            try handler(request) { result in
                once.send {
                    switch result {
                    case .success(let response): response
                    case .failure(let error): renderer(error, routed)
                    }
                }
            }
        } catch {
            once.send { renderer(error, routed) }
        }
        return true
    }

    /// Answers any request, running a deferred route's handler off the server's thread (and awaiting a callback
    /// route's answer).
    public func respond(to request: Request) async -> Response {
        switch match(request) {
        case .found(.deferred(let handler), let parameters):
            var request = request
            request.pathParameters = parameters
            do { return try await handler(request) } catch { return errorRenderer(error, request) }
        case .found(.later, _):
            return await withCheckedContinuation { continuation in
                _ = respondLater(to: request) { continuation.resume(returning: $0) }
            }
        default:
            return respondInline(to: request) ?? errorRenderer(Self.notFoundError(request), request)
        }
    }

    static func notFound(_ request: Request) -> Response { notFoundError(request).response }

    static func notFoundError(_ request: Request) -> HTTPError {
        HTTPError(.notFound, code: "not_found", message: "Nothing is served at this path.", detail: request.path)
    }

    static func methodNotAllowed(_ allowed: [String], _ request: Request) -> Response {
        methodNotAllowedError(allowed, request).response
    }

    static func methodNotAllowedError(_ allowed: [String], _ request: Request) -> HTTPError {
        let allow = Array(Set(allowed)).sorted().joined(separator: ", ")
        return HTTPError(.methodNotAllowed, code: "method_not_allowed",
            message: "\(request.method) is not supported at this path.", detail: "Allowed: \(allow)", headers: ["Allow": allow])
    }

    /// Renders ``HTTPError`` as its JSON answer and any other error as an opaque `500`.
    public static func defaultErrorResponse(_ error: any Error, _ request: Request) -> Response {
        if let error = error as? HTTPError { return error.response }
        return HTTPError(.internalServerError, code: "internal_error",
            message: "The server failed to answer this request.").response
    }
}

/// A reply handed over once: a handler that calls back twice (a bug) cannot answer a request twice or resume a
/// continuation twice; the later answers are dropped.
private final class ReplyOnce: Sendable {
    private let reply: @Sendable (Response) -> Void
    private let sent = Mutex(false)

    init(_ reply: @escaping @Sendable (Response) -> Void) { self.reply = reply }

    func send(_ response: () -> Response) {
        let first = sent.withLock { sent -> Bool in
            defer { sent = true }
            return !sent
        }
        if first { reply(response()) }
    }
}
