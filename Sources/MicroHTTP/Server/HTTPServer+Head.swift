import CMicroHTTPD
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension HTTPServer {
    /// Judges a request whose head is complete, before any body is read: framing and `Host` (``RequestHeadCheck``),
    /// the target's length, its path (``PathNormalizer``), its query (``QueryCheck``), then the responder's ``HTTPResponder/judgeHead(_:)`` and
    /// body cap. Returns the refusal to send, or nil (the head is then kept for the request).
    func judge(_ context: RequestContext, _ connection: OpaquePointer, method: String) -> Response? {
        let headers = pairs(connection, .HEADER_KIND)
        if let problem = RequestHeadCheck.problem(headers) {
            // Where this request ends is unknown (or it is not to be trusted): nothing after it is read as a request.
            var refusal = problem.response
            refusal.addHeader("Connection", "close")
            return refusal
        }
        let length = context.target.utf8.count
        if length > configuration.maxURLLength { return uriTooLong(length) }
        let path: String
        switch PathNormalizer.normalize(context.target) {
        case .success(let normalized): path = normalized
        case .failure(let failure):
            return responder.shapeRefusal(HTTPError(.badRequest, code: "bad_path", message: "The request path is malformed.",
                detail: "\(failure): escapes must be %XX, and may not encode NUL or control characters."), target: context.target)
        }
        if let problem = QueryCheck.problem(context.target) { return responder.shapeRefusal(problem, target: context.target) }
        var peer = [CChar](repeating: 0, count: 64)
        pc_connection_peer(connection, &peer, peer.count)
        let head = Request(
            method: method, path: path, queryItems: pairs(connection, .GET_ARGUMENT_KIND), headers: headers,
            remoteAddress: peer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        if let refusal = responder.judgeHead(head) { return refusal }
        let limit = responder.bodyLimit(for: head) ?? configuration.maxBodySize
        let announced = head.header("Content-Length").flatMap(Int.init)
        if let announced, announced > limit { return tooLarge(announced, limit: limit, target: context.target) }
        if let announced, announced > 0 {
            guard reserveBody(announced, holding: 0) else { return overBudget() }
            context.state.withLock { $0.reserved = announced }
        }
        context.state.withLock { state in
            state.head = head
            state.bodyLimit = limit
            state.expectedLength = announced ?? 0
        }
        return nil
    }

    /// Whether the request announces a body (which an early answer leaves unread: the connection must close).
    func announcesBody(_ connection: OpaquePointer) -> Bool {
        if headerValue(connection, "Transfer-Encoding") != nil { return true }
        return (headerValue(connection, "Content-Length").flatMap(Int.init) ?? 0) > 0
    }

    func uriTooLong(_ length: Int) -> Response {
        HTTPError(.uriTooLong, code: "uri_too_long", message: "The request URL is too long.",
            detail: "Limit: \(ByteCount.text(configuration.maxURLLength)), sent: \(ByteCount.text(length))").response
    }

    /// Answers an over-long request target with a JSON `414` written straight to the socket, then ends the
    /// connection. libmicrohttpd would have to build that answer in the connection's memory, which a target of
    /// nearly ``HTTPServerConfiguration/connectionMemory`` bytes has filled: it then closed the connection with no
    /// answer at all. Safe here: the URI log callback runs before any answer to this request, and libmicrohttpd
    /// reads a request only once the previous answer has gone out.
    func refuseLongTarget(_ context: RequestContext, _ connection: OpaquePointer) {
        context.state.withLock { $0.answeredOnSocket = true }
        answerOnSocket(uriTooLong(context.target.utf8.count), connection)
    }

    /// Hands freed heap memory back to the system after a large body, off the network thread, one pass at a time.
    func releaseFreeMemory() {
        let queued = trimQueued.withLock { queued -> Bool in
            defer { queued = true }
            return queued
        }
        guard !queued else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .milliseconds(50)) { [self] in
            trimQueued.withLock { $0 = false }
            pc_release_free_memory()
        }
    }

    /// Process-wide settings a server needs, made once: large allocations (request bodies) in pages of their own that
    /// go back to the system when freed, smaller ones reusing the heap's pages (up to 8 MiB free at its top, rather
    /// than faulting fresh pages in for each answer), and the descriptor limit raised to its hard maximum for many
    /// connections.
    static func prepareProcess() { _ = processPrepared }

    private static let processPrepared: Bool = {
        pc_fix_mmap_threshold(1 << 20)
        pc_set_trim_threshold(8 << 20)
        var limit = rlimit()
        if getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = min(limit.rlim_max, 65536)
            _ = setrlimit(RLIMIT_NOFILE_VALUE, &limit)
        }
        return true
    }()

    /// `configured`, lowered to leave room under the process's descriptor limit.
    static func connectionLimit(_ configured: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return configured }
        let room = Int(clamping: limit.rlim_cur) - 128
        return max(16, min(configured, room))
    }
}

#if canImport(Glibc)
private let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#endif
