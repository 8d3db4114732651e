/// How an ``HTTPServer`` listens and what it tolerates.
public struct HTTPServerConfiguration: Sendable {
    /// The IPv4 address to bind; loopback by default so nothing is exposed by accident.
    public var host: String
    /// The port; `0` picks a free one (read it back from ``HTTPServer/port``).
    public var port: UInt16
    /// Network threads (libmicrohttpd's epoll thread pool).
    public var threadPoolSize: Int
    /// Open connections at most; further connections are refused by the kernel's backlog and then closed.
    public var connectionLimit: Int
    /// Seconds a connection may stay silent before it is closed (cuts off slow-header "slowloris" clients).
    public var connectionTimeout: Int
    /// Largest request body accepted; bigger ones answer `413`.
    public var maxBodySize: Int

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1", port: UInt16 = 0, threadPoolSize: Int = 2, connectionLimit: Int = 1024,
        connectionTimeout: Int = 30, maxBodySize: Int = 1 << 20
    ) {
        self.host = host
        self.port = port
        self.threadPoolSize = threadPoolSize
        self.connectionLimit = connectionLimit
        self.connectionTimeout = connectionTimeout
        self.maxBodySize = maxBodySize
    }
}

/// Why a server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What failed, in words.
    public var message: String
    public var description: String { message }
}
