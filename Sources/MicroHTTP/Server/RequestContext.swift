import CMicroHTTPD
import Foundation
import Synchronization

/// `MHD_Connection *` carried across threads. libmicrohttpd allows resuming a suspended connection from any
/// thread, and the pointer stays valid until the request-completed callback, which cannot run while suspended.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// Per-request state kept in libmicrohttpd's `con_cls` slot from the first callback to the completed callback.
final class RequestContext: Sendable {
    enum Phase: Sendable {
        case receiving
        case waitingForHandler
        case answered(Response)
        case sent
    }

    struct State: Sendable {
        var body = Data()
        var tooLarge = false
        var discarded = 0
        var isStream = false
        var phase = Phase.receiving
    }

    let method: String
    let path: String
    let connection: ConnectionHandle
    let state = Mutex(State())

    init(method: String, path: String, connection: ConnectionHandle) {
        self.method = method
        self.path = path
        self.connection = connection
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
