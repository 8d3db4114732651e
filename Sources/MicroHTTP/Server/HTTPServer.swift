import CMicroHTTPD
import Foundation
import Logging
import Synchronization

/// An HTTP/1.1 server: libmicrohttpd does the sockets (epoll thread pool), Swift does routing and bodies.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 8080), responder: router, logger: logger)
/// try server.start()
/// print("listening on \(server.port)")
/// await server.shutdown()
/// ```
/// Each request is first offered to ``HTTPResponder/respondInline(to:)`` on the network thread; otherwise the
/// connection is suspended while ``HTTPResponder/respond(to:)`` runs as a task, then resumed with the answer.
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
    }

    struct DaemonHandle: @unchecked Sendable { let pointer: OpaquePointer }

    let state = Mutex(State())

    /// Creates a server; call ``start()`` to listen.
    public init(configuration: HTTPServerConfiguration = .init(), responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
    }

    /// The bound port (meaningful after ``start()``).
    public var port: UInt16 { state.withLock { $0.port } }

    /// The base URL, e.g. `http://127.0.0.1:8080`.
    public var baseURL: String { "http://\(configuration.host):\(port)" }

    /// Requests being handled right now (streams included).
    public var openRequestCount: Int { state.withLock { $0.openRequests } }

    /// Starts listening.
    ///
    /// - Throws: ``HTTPServerError`` when the address cannot be bound (in use, not local, bad address).
    public func start() throws {
        let flags =
            MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        let this = Unmanaged.passRetained(self).toOpaque()
        let daemon = pc_start_daemon(
            UInt32(flags), configuration.port, configuration.host, UInt32(max(1, configuration.threadPoolSize)),
            UInt32(configuration.connectionLimit), UInt32(configuration.connectionTimeout), configuration.connectionMemory,
            { cls, connection, url, method, _, uploadData, uploadSize, conCls in
                let server = Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue()
                return server.access(connection!, url!, method!, uploadData, uploadSize!, conCls!)
            }, this,
            { cls, _, conCls, _ in
                let server = Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue()
                server.completed(conCls)
            }, this)
        guard let daemon else {
            Unmanaged<HTTPServer>.fromOpaque(this).release()
            throw HTTPServerError(message: "Could not listen on \(configuration.host):\(configuration.port).")
        }
        let port = pc_daemon_port(daemon)
        state.withLock {
            $0.daemon = DaemonHandle(pointer: daemon)
            $0.port = port
        }
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
        state.withLock { $0.daemon = nil }
        Unmanaged.passUnretained(self).release()
        logger.info("stopped", metadata: ["port": "\(port)"])
    }

    // MARK: - libmicrohttpd callbacks

    func access(
        _ connection: OpaquePointer, _ url: UnsafePointer<CChar>, _ method: UnsafePointer<CChar>,
        _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>,
        _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> pc_mhd_result {
        guard let raw = conCls.pointee else {
            let context = RequestContext(method: String(cString: method), path: String(cString: url),
                connection: ConnectionHandle(pointer: connection))
            conCls.pointee = Unmanaged.passRetained(context).toOpaque()
            let draining = state.withLock { state in
                state.openRequests += 1
                return state.draining
            }
            if draining {
                context.state.withLock { $0.phase = .sent }
                return queue(
                    HTTPError(.serviceUnavailable, code: "shutting_down", message: "The server is stopping.").response,
                    on: connection)
            }
            if let length = headerValue(connection, "Content-Length").flatMap(Int.init), length > configuration.maxBodySize {
                context.state.withLock { $0.phase = .sent }
                return queue(tooLarge(length), on: connection)
            }
            return .YES
        }
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            // libmicrohttpd only accepts an answer before or after the body, so a body over the cap is read and
            // dropped, then answered 413; a client that keeps sending far past it is disconnected.
            let count = uploadSize.pointee
            uploadSize.pointee = 0
            let keepReading = context.state.withLock { state -> Bool in
                if state.tooLarge {
                    state.discarded += count
                    return state.discarded < 8 * configuration.maxBodySize + (1 << 20)
                }
                if state.body.count + count > configuration.maxBodySize {
                    state.tooLarge = true
                    state.body = Data()
                    return true
                }
                state.body.append(UnsafeRawPointer(uploadData!).assumingMemoryBound(to: UInt8.self), count: count)
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
        case .waitingForHandler, .sent: return .YES
        case .receiving: break
        }
        if context.state.withLock({ $0.tooLarge }) {
            context.state.withLock { $0.phase = .sent }
            return queue(tooLarge(nil), on: connection)
        }
        let request = makeRequest(context, connection)
        if let response = responder.respondInline(to: request) {
            context.state.withLock { $0.phase = .sent }
            return send(response, for: context, on: connection)
        }
        context.state.withLock { $0.phase = .waitingForHandler }
        state.withLock { $0.waiting[ObjectIdentifier(context)] = context }
        MHD_suspend_connection(connection)
        let responder = self.responder
        Task {
            let response = await responder.respond(to: request)
            self.deliver(response, to: context)
        }
        return .YES
    }

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

    func completed(_ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let conCls, let raw = conCls.pointee else { return }
        conCls.pointee = nil
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
        let isStream = context.state.withLock { $0.isStream }
        state.withLock {
            $0.openRequests -= 1
            if isStream { $0.streamRequests -= 1 }
            $0.waiting.removeValue(forKey: ObjectIdentifier(context))
        }
    }

    private func tooLarge(_ length: Int?) -> Response {
        HTTPError(.payloadTooLarge, code: "payload_too_large", message: "The request body is too large.",
            detail: "Limit: \(configuration.maxBodySize) bytes" + (length.map { ", sent: \($0) bytes" } ?? "")).response
    }
}
