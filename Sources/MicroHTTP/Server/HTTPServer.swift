import CMicroHTTPD
import Foundation
import Logging
import Locking

/// An HTTP/1.1 server: libmicrohttpd does the sockets (epoll thread pool), Swift does routing and bodies.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 8080), responder: router, logger: logger)
/// try server.start()
/// print("listening on \(server.port)")
/// await server.shutdown()
/// ```
/// Each request is first offered to ``HTTPResponder/respondInline(to:)`` on the network thread; otherwise the
/// connection is suspended while ``HTTPResponder/respondLater(to:reply:)`` (a completion callback) or
/// ``HTTPResponder/respond(to:)`` (a task) makes the answer, then resumed with it.
public final class HTTPServer: Sendable {
    /// The configuration given at creation.
    public let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger

    struct State: Sendable {
        var daemon: DaemonHandle?
        var port: UInt16 = 0
        var draining = false
        var openRequests = 0
        var streamRequests = 0
        var waiting: [ObjectIdentifier: RequestContext] = [:]
        var streams: [ObjectIdentifier: EventStreamSubscription] = [:]
        /// Requests whose request line came and whose head is not judged yet, by connection (``HeadRefusal``).
        var heads: [UInt: RequestContext] = [:]
        /// Body bytes reserved by requests in flight (``HTTPServerConfiguration/bodyMemoryBudget``).
        var bodyBytesReserved = 0
    }

    struct DaemonHandle: @unchecked Sendable { let pointer: OpaquePointer }

    let state = Mutex(State())
    /// Per-client connection counts and the head deadline (see ``ConnectionWatch``).
    let watch: ConnectionWatch
    /// Whether a pass returning freed memory to the system is already queued.
    let trimQueued = Mutex(false)

    /// Creates a server; call ``start()`` to listen.
    public init(configuration: HTTPServerConfiguration = .init(), responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        watch = ConnectionWatch(
            perClientLimit: configuration.perClientConnectionLimit, headTimeout: .seconds(max(0, configuration.headTimeout)),
            idleTimeout: .seconds(max(0, configuration.connectionTimeout) + max(0, configuration.headTimeout)))
    }

    /// The bound port (meaningful after ``start()``).
    public var port: UInt16 { state.withLock { $0.port } }

    /// The base URL, e.g. `http://127.0.0.1:8080`.
    public var baseURL: String { "\(configuration.tls == nil ? "http" : "https")://\(configuration.host):\(port)" }

    /// Requests being handled right now (streams included).
    public var openRequestCount: Int { state.withLock { $0.openRequests } }

    /// Starts listening.
    ///
    /// - Throws: ``HTTPServerError`` when the address cannot be bound (in use, not local, bad address).
    public func start() throws {
        let flags =
            MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        Self.prepareProcess()
        if configuration.tls != nil, pc_tls_supported() == 0 {
            throw HTTPServerError(message: "This libmicrohttpd was built without TLS: HTTPS cannot be served.")
        }
        let this = Unmanaged.passRetained(self).toOpaque()
        let daemon = pc_start_daemon(
            UInt32(flags), configuration.port, configuration.host, UInt32(max(1, configuration.threadPoolSize)),
            UInt32(Self.connectionLimit(configuration.connectionLimit)), UInt32(configuration.connectionTimeout),
            configuration.connectionMemory,
            { cls, connection, url, method, _, uploadData, uploadSize, conCls in
                let server = Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue()
                return server.access(connection!, url!, method!, uploadData, uploadSize!, conCls!)
            }, this,
            { cls, connection, conCls, _ in
                let server = Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue()
                server.completed(connection, conCls)
            }, this,
            { cls, uri, connection in
                let server = Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue()
                return server.requestLine(uri!, connection!)
            },
            { cls, address, _ in
                let server = Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue()
                var peer = [CChar](repeating: 0, count: 64)
                pc_address_text(address, &peer, peer.count)
                return server.watch.mayAccept(peer: peer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }) ? .YES : .NO
            },
            { cls, connection, _, code in
                let server = Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue()
                if pc_notify_is_start(code) != 0 { server.watch.opened(connection!) } else { server.watch.closed(connection!) }
            },
            { cls, message in
                let server = Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue()
                server.libraryLogged(message!)
            }, configuration.tls?.privateKeyPEM, configuration.tls?.certificateChainPEM)
        guard let daemon else {
            Unmanaged<HTTPServer>.fromOpaque(this).release()
            throw HTTPServerError(message: "Could not listen on \(configuration.host):\(configuration.port)"
                + (configuration.tls == nil ? "." : " (or the TLS key and certificate are not a matching PEM pair)."))
        }
        let port = pc_daemon_port(daemon)
        state.withLock {
            $0.daemon = DaemonHandle(pointer: daemon)
            $0.port = port
        }
        if configuration.headTimeout > 0 { watch.startSweeping() }
        logger.info("listening", metadata: ["address": "\(configuration.host):\(port)"])
    }

    /// Stops accepting connections, ends event streams, lets in-flight requests finish (up to `gracePeriod`),
    /// answers any still waiting with `503`, then closes every connection. Safe to call more than once.
    public func shutdown(gracePeriod: Duration = .seconds(5)) async {
        guard let daemon = state.withLock({ state -> DaemonHandle? in
            guard !state.draining else { return nil }
            state.draining = true
            return state.daemon
        }) else { return }
        // No MHD_quiesce_daemon: on an epoll daemon with its own threads it races the event loop, which removes the
        // same listen socket from its epoll set and aborts the process on ENOENT ("Failed to remove listen FD from
        // epoll set", an open libmicrohttpd defect seen in our CI). Instead the listener stays up while draining and
        // new requests are answered 503 with `Connection: close`; MHD_stop_daemon then closes it.
        for stream in state.withLock({ Array($0.streams.values) }) { stream.close() }
        let deadline = ContinuousClock.now + gracePeriod
        while state.withLock({ $0.openRequests - $0.streamRequests > 0 }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        for context in state.withLock({ Array($0.waiting.values) }) {
            deliver(HTTPError(.serviceUnavailable, code: "shutting_down", message: "The server is stopping.").response,
                to: context)
        }
        try? await Task.sleep(for: .milliseconds(20))
        MHD_stop_daemon(daemon.pointer)
        watch.stop()
        state.withLock { $0.daemon = nil }
        Unmanaged.passUnretained(self).release()
        logger.info("stopped", metadata: ["port": "\(port)"])
    }

    // MARK: - libmicrohttpd callbacks

    /// The request line arrived (libmicrohttpd's URI log callback): the request's context, with its target as sent.
    func requestLine(_ uri: UnsafePointer<CChar>, _ connection: OpaquePointer) -> UnsafeMutableRawPointer? {
        watch.requestLine(connection)
        let context = RequestContext(target: String(cString: uri), connection: ConnectionHandle(pointer: connection))
        if context.target.utf8.count > configuration.maxURLLength { refuseLongTarget(context, connection) }
        state.withLock { $0.heads[Self.key(connection)] = context }
        return Unmanaged.passRetained(context).toOpaque()
    }

    func access(
        _ connection: OpaquePointer, _ url: UnsafePointer<CChar>, _ method: UnsafePointer<CChar>,
        _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>,
        _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> pc_mhd_result {
        let context: RequestContext
        if let raw = conCls.pointee {
            context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        } else {
            context = RequestContext(target: String(cString: url), connection: ConnectionHandle(pointer: connection))
            conCls.pointee = Unmanaged.passRetained(context).toOpaque()
        }
        if context.state.withLock({ $0.answeredOnSocket }) { return .NO }
        let first = context.state.withLock { state -> Bool in
            guard case .head = state.phase else { return false }
            state.phase = .receiving
            state.counted = true
            return true
        }
        if first {
            // The head is complete and no byte of the body has been read: judge it now.
            watch.headReceived(connection)
            let draining = state.withLock { state in
                state.openRequests += 1
                state.heads.removeValue(forKey: Self.key(connection))
                return state.draining
            }
            let refusal = draining
                ? HTTPError(.serviceUnavailable, code: "shutting_down", message: "The server is stopping.").response
                : judge(context, connection, method: String(cString: method))
            guard var refusal else { return .YES }
            context.state.withLock { $0.phase = .sent }
            if !draining, announcesBody(connection), !refusal.headers.contains(where: { $0.name.equalsIgnoringASCIICase("Connection") }) {
                refusal.addHeader("Connection", "close")
            }
            return queue(refusal, on: connection)
        }
        if uploadSize.pointee > 0 {
            // libmicrohttpd only accepts an answer before or after the body, so a chunked body over the cap is dropped
            // (never buffered) and answered 413 at its end; a client that keeps sending far past it is disconnected.
            let count = uploadSize.pointee
            uploadSize.pointee = 0
            let keepReading = context.state.withLock { state -> Bool in
                if state.tooLarge || state.overBudget {
                    state.discarded += count
                    return state.discarded < Self.discardAllowance
                }
                if state.body.count + count > state.bodyLimit {
                    state.tooLarge = true
                    state.body = Data()
                    return true
                }
                let needed = state.body.count + count - state.reserved
                if needed > 0 {
                    // A body without `Content-Length` (chunked) reserves as it grows, in 64 KiB steps.
                    let step = (needed + 0xFFFF) & ~0xFFFF
                    guard reserveBody(step, holding: state.reserved) else {
                        state.overBudget = true
                        state.body = Data()
                        return true
                    }
                    state.reserved += step
                }
                if state.body.isEmpty, state.expectedLength > 0 { state.body.reserveCapacity(state.expectedLength) }
                state.body.append(UnsafeRawPointer(uploadData!).assumingMemoryBound(to: UInt8.self), count: count)
                state.bodyBytes = max(state.bodyBytes, state.body.count)
                return true
            }
            return keepReading ? .YES : .NO
        }
        let phase = context.state.withLock { state -> RequestContext.Phase in
            let phase = state.phase
            if case .answered = phase { state.phase = .sent }
            return phase
        }
        switch phase {
        case .answered(let response): return send(response, for: context, on: connection)
        case .waitingForHandler, .sent, .head: return .YES
        case .receiving: break
        }
        if context.state.withLock({ $0.tooLarge }) {
            context.state.withLock { $0.phase = .sent }
            return queue(tooLarge(nil, limit: context.state.withLock { $0.bodyLimit }, target: context.target), on: connection)
        }
        if context.state.withLock({ $0.overBudget }) {
            context.state.withLock { $0.phase = .sent }
            return queue(overBudget(), on: connection)
        }
        let request = makeRequest(context)
        if let response = responder.respondInline(to: request) {
            context.state.withLock { $0.phase = .sent }
            return send(response, for: context, on: connection)
        }
        context.state.withLock { $0.phase = .waitingForHandler }
        state.withLock { $0.waiting[ObjectIdentifier(context)] = context }
        // Parked before the responder starts: its answer may come from another thread at any moment.
        MHD_suspend_connection(connection)
        if responder.respondLater(to: request, reply: { [self] response in deliver(response, to: context) }) { return .YES }
        let responder = self.responder
        Task {
            let response = await responder.respond(to: request)
            self.deliver(response, to: context)
        }
        return .YES
    }

    /// Bytes of an over-the-cap chunked body read (and dropped) before the client is disconnected.
    static let discardAllowance = 4 << 20

    /// Hands a deferred answer to a suspended connection and resumes it; later answers for it are dropped.
    func deliver(_ response: Response, to context: RequestContext) {
        let first = context.state.withLock { state -> Bool in
            guard case .waitingForHandler = state.phase else { return false }
            state.phase = .answered(response)
            return true
        }
        guard first else { return }
        state.withLock { _ = $0.waiting.removeValue(forKey: ObjectIdentifier(context)) }
        MHD_resume_connection(context.connection.pointer)
    }

    func completed(_ connection: OpaquePointer?, _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        if let connection {
            watch.requestCompleted(connection)
            state.withLock { _ = $0.heads.removeValue(forKey: Self.key(connection)) }
        }
        guard let conCls, let raw = conCls.pointee else { return }
        conCls.pointee = nil
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
        let (isStream, counted, bodyBytes, reserved) = context.state.withLock { state in
            defer { state.reserved = 0 }
            return (state.isStream, state.counted, state.bodyBytes, state.reserved)
        }
        state.withLock {
            $0.bodyBytesReserved -= reserved
            if counted { $0.openRequests -= 1 }
            if isStream { $0.streamRequests -= 1 }
            $0.waiting.removeValue(forKey: ObjectIdentifier(context))
        }
        if bodyBytes >= 1 << 20 { releaseFreeMemory() }
    }

    /// Takes `bytes` of the body budget for a request already holding `holding` bytes of it. Refused only while
    /// other requests hold some of it, so one body alone always fits.
    func reserveBody(_ bytes: Int, holding: Int) -> Bool {
        let budget = configuration.bodyMemoryBudget
        return state.withLock { state in
            let others = state.bodyBytesReserved - holding
            if budget > 0, others > 0, state.bodyBytesReserved > budget - bytes { return false }
            state.bodyBytesReserved += bytes
            return true
        }
    }

    /// Bytes of request bodies held right now by requests in flight.
    public var bodyBytesReserved: Int { state.withLock { $0.bodyBytesReserved } }

    func overBudget() -> Response {
        var response = HTTPError(.serviceUnavailable, code: "busy_with_uploads",
            message: "The server is receiving other large uploads; try again in a moment.",
            detail: "Bodies held at once are capped at \(configuration.bodyMemoryBudget) bytes.").response
        response.addHeader("Retry-After", "1")
        return response
    }

    func tooLarge(_ length: Int?, limit: Int, target: String) -> Response {
        responder.shapeRefusal(HTTPError(.payloadTooLarge, code: "payload_too_large",
            message: "The request body is too large: this endpoint takes up to \(ByteCount.text(limit)).",
            detail: "Limit: \(ByteCount.text(limit))" + (length.map { ", sent: \(ByteCount.text($0))" } ?? "")), target: target)
    }
}
