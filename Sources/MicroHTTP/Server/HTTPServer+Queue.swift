import CMicroHTTPD
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Collects key/value pairs from `MHD_get_connection_values`.
private final class PairCollector {
    var pairs: [(name: String, value: String)] = []
}

extension HTTPServer {
    func pairs(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(name: String, value: String)] {
        let collector = PairCollector()
        let box = Unmanaged.passUnretained(collector).toOpaque()
        MHD_get_connection_values(connection, kind, { cls, _, key, value in
            let collector = Unmanaged<PairCollector>.fromOpaque(cls!).takeUnretainedValue()
            if let key { collector.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? "")) }
            return .YES
        }, box)
        return collector.pairs
    }

    func headerValue(_ connection: OpaquePointer, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }

    /// The request judged at its head with the body received since; the context lets go of the body, so its
    /// memory goes with the request.
    func makeRequest(_ context: RequestContext) -> Request {
        let (head, body) = context.state.withLock { state -> (Request?, Data) in
            let body = state.body
            state.body = Data()
            return (state.head, body)
        }
        var request = head ?? Request(method: "GET", path: "/")
        if !body.isEmpty { request.body = body }
        return request
    }

    /// Queues the answer for `context`, counting event streams apart so shutdown does not wait for them.
    func send(_ response: Response, for context: RequestContext, on connection: OpaquePointer) -> pc_mhd_result {
        if case .eventStream = response.body {
            context.state.withLock { $0.isStream = true }
            state.withLock { $0.streamRequests += 1 }
        }
        return queue(response, on: connection)
    }

    /// Turns a ``Response`` into a libmicrohttpd response and queues it.
    func queue(_ response: Response, on connection: OpaquePointer) -> pc_mhd_result {
        // A prepared answer is queued as it is (while draining, a fresh one carries `Connection: close`).
        if let prepared = response.prepared, !state.withLock({ $0.draining }),
            let handle = prepared.handle()
        {
            return MHD_queue_response(connection, UInt32(response.status.code), handle)
        }
        var mhdResponse: OpaquePointer?
        switch response.body {
        case .data(let data):
            mhdResponse = data.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(
                    bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .file(let path, let size):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                return queue(HTTPError(.notFound, code: "file_not_found", message: "No such file.").response,
                    on: connection)
            }
            mhdResponse = MHD_create_response_from_fd(Int(size), fd)
            if mhdResponse == nil { close(fd) }  // libmicrohttpd owns the descriptor only once the response exists
        case .eventStream(let subscription):
            mhdResponse = streamResponse(subscription, connection)
        case .closeWithoutAnswer:
            // libmicrohttpd closes a connection whose handler answers MHD_NO, sending nothing.
            return .NO
        }
        guard let mhdResponse else { return .NO }
        for (name, value) in response.headers where !name.equalsIgnoringASCIICase("Content-Length") {
            MHD_add_response_header(mhdResponse, name, value)
        }
        if state.withLock({ $0.draining }) { MHD_add_response_header(mhdResponse, "Connection", "close") }
        let result = MHD_queue_response(connection, UInt32(response.status.code), mhdResponse)
        MHD_destroy_response(mhdResponse)
        return result
    }

    private func streamResponse(_ subscription: EventStreamSubscription, _ connection: OpaquePointer) -> OpaquePointer? {
        let handle = ConnectionHandle(pointer: connection)
        let registered = state.withLock { state -> Bool in
            guard !state.draining else { return false }
            state.streams[ObjectIdentifier(subscription)] = subscription
            return true
        }
        if !registered { subscription.close() }
        subscription.setWake { MHD_resume_connection(handle.pointer) }
        let context = Unmanaged.passRetained(
            StreamContext(subscription: subscription, connection: handle, server: self)
        ).toOpaque()
        return MHD_create_response_from_callback(
            pc_size_unknown, 4096,
            { cls, _, buffer, max in
                let context = Unmanaged<StreamContext>.fromOpaque(cls!).takeUnretainedValue()
                let result = context.subscription.read(into: buffer!, maxLength: max) {
                    MHD_suspend_connection(context.connection.pointer)
                }
                switch result {
                case .bytes(let count): return count
                case .parked: return 0
                case .finished: return pc_content_reader_end_of_stream
                case .overflowed: return pc_content_reader_end_with_error
                }
            }, context,
            { cls in
                let context = Unmanaged<StreamContext>.fromOpaque(cls!).takeRetainedValue()
                context.subscription.finish()
                context.server.state.withLock { _ = $0.streams.removeValue(forKey: ObjectIdentifier(context.subscription)) }
            })
    }
}
