import CMicroHTTPD
import Foundation
import Locking

/// `MHD_Connection *` carried across threads. libmicrohttpd allows resuming a suspended connection from any
/// thread, and the pointer stays valid until the request-completed callback, which cannot run while suspended.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// Per-request state kept in libmicrohttpd's `con_cls` slot from the request line (the URI log callback) to the
/// completed callback.
final class RequestContext: Sendable {
    enum Phase: Sendable {
        /// The head is still arriving (no access callback yet).
        case head
        case receiving
        case waitingForHandler
        case answered(Response)
        case sent
    }

    struct State: Sendable {
        var body = Data()
        var bodyLimit = 0
        /// The body's announced length (`Content-Length`), reserved at its first bytes so it grows without copies.
        var expectedLength = 0
        /// The most body bytes held at once (a large body's memory is handed back to the system once it is freed).
        var bodyBytes = 0
        var tooLarge = false
        /// Bytes of the server's ``HTTPServerConfiguration/bodyMemoryBudget`` this request holds.
        var reserved = 0
        /// The body outgrew the budget (a chunked body): dropped, answered `503` at its end.
        var overBudget = false
        var discarded = 0
        var isStream = false
        /// Counted in the server's open requests (from the first access callback on).
        var counted = false
        /// The request as judged at its head: method, normalised path, query, headers (no body).
        var head: Request?
        var phase = Phase.head
        /// Answered by writing to the socket directly (an over-long target): the request is dropped.
        var answeredOnSocket = false
    }

    /// The request target as sent (not decoded), e.g. `//api/x?y=1`.
    let target: String
    let connection: ConnectionHandle
    let state = Mutex(State())
    /// The network thread that read the request line: libmicrohttpd handles a connection on one thread only.
    let thread: pthread_t

    init(target: String, connection: ConnectionHandle) {
        self.target = target
        self.connection = connection
        thread = pthread_self()
    }
}

/// A subscription and its connection, handed to the content-reader callbacks.
final class StreamContext: Sendable {
    let subscription: EventStreamSubscription
    let connection: ConnectionHandle
    let server: HTTPServer

    init(subscription: EventStreamSubscription, connection: ConnectionHandle, server: HTTPServer) {
        self.subscription = subscription
        self.connection = connection
        self.server = server
    }
}
