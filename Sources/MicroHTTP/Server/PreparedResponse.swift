import CMicroHTTPD
import Foundation
import Locking

/// A libmicrohttpd response built once and queued for many requests: for a cached static file, the body is copied
/// into libmicrohttpd and its headers added once, instead of on every request (a copy of the file, five header
/// allocations and their C strings each time). libmicrohttpd counts the response's users, so a connection still
/// sending it keeps it alive after the cache drops this object.
public final class PreparedResponse: Sendable {
    private let data: Data
    private let headers: [(name: String, value: String)]
    private let built = Mutex<Handle?>(nil)

    /// The libmicrohttpd response pointer, owned by this object.
    private struct Handle: @unchecked Sendable { var pointer: OpaquePointer }

    /// A response with `headers` and `data`, built on first use (the status is the queued ``Response``'s).
    public init(headers: [(name: String, value: String)], data: Data) {
        self.headers = headers
        self.data = data
    }

    deinit {
        if let handle = built.withLock({ $0 }) { MHD_destroy_response(handle.pointer) }
    }

    /// The built response (nil if libmicrohttpd could not make one); the same pointer every time.
    func handle() -> OpaquePointer? {
        built.withLock { built in
            if let built { return built.pointer }
            let pointer = data.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
            guard let pointer else { return nil }
            for (name, value) in headers where !name.equalsIgnoringASCIICase("Content-Length") {
                MHD_add_response_header(pointer, name, value)
            }
            built = Handle(pointer: pointer)
            return pointer
        }
    }
}
