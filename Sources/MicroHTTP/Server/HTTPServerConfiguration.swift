/// How an ``HTTPServer`` listens and what it tolerates.
public struct HTTPServerConfiguration: Sendable {
    /// The IPv4 address to bind; loopback by default so nothing is exposed by accident.
    public var host: String
    /// The port; `0` picks a free one (read it back from ``HTTPServer/port``).
    public var port: UInt16
    /// Network threads (libmicrohttpd's epoll thread pool).
    public var threadPoolSize: Int
    /// Open connections at most; further connections are accepted and closed at once. Large, so that many slow
    /// clients cannot take every slot (``perClientConnectionLimit`` and ``headTimeout`` keep each client's share
    /// small); lowered at start to what the process's descriptor limit allows.
    public var connectionLimit: Int
    /// Seconds a connection may stay silent before it is closed (cuts off slow-header "slowloris" clients).
    public var connectionTimeout: Int
    /// Largest request body accepted; bigger ones answer `413` (before any of it is read when `Content-Length`
    /// says so). A responder may set a smaller cap per request (``HTTPResponder/bodyLimit(for:)``).
    public var maxBodySize: Int
    /// Connections one client address may hold at once (`0`: no limit). Loopback clients are exempt: they are this
    /// machine, and local tests and tools open many; the ``headTimeout`` still bounds what they hold.
    public var perClientConnectionLimit: Int
    /// Seconds a connection has to deliver a whole request head once accepted or once its request line arrived,
    /// however slowly it trickles bytes (`0`: no deadline).
    public var headTimeout: Int
    /// Longest request target (path and query) accepted; longer ones answer `414` with a JSON body. Kept well
    /// under ``connectionMemory`` so libmicrohttpd has room for the answer.
    public var maxURLLength: Int
    /// Bytes libmicrohttpd keeps per connection for the request line, headers and the answer's headers (its
    /// `MHD_OPTION_CONNECTION_MEMORY_LIMIT`); a request whose headers do not fit is answered `431`. libmicrohttpd
    /// zeroes this area after every request on a kept-alive connection, so its default of 32 KiB cost ~8% of a
    /// static file's CPU. 16 KiB holds ~15 KB of headers on a GET, a ~7 KB `Cookie` (libmicrohttpd keeps a parsed
    /// copy) and ~4 KB with a POST body — near nginx's default of 8 KB per header line.
    public var connectionMemory: Int
    /// Request-body bytes all connections together may hold at once (`0`: no budget). A request whose announced
    /// body would go past it while other bodies are held answers `503` with `Retry-After` before any of it is read
    /// (one body is always let through, so a single upload up to ``maxBodySize`` still works); a chunked body that
    /// grows past it is dropped and answered `503` at its end. Bounds the memory of many concurrent large uploads.
    public var bodyMemoryBudget: Int

    /// Creates a configuration.
    /// Serve HTTPS with this key and certificate (libmicrohttpd's TLS, GnuTLS underneath); plain HTTP when `nil`.
    public var tls: TLSIdentity?

    public init(
        host: String = "127.0.0.1", port: UInt16 = 0, threadPoolSize: Int = 2, connectionLimit: Int = 4096,
        connectionTimeout: Int = 30, maxBodySize: Int = 1 << 20, connectionMemory: Int = 16 * 1024,
        perClientConnectionLimit: Int = 64, headTimeout: Int = 10, maxURLLength: Int = 8 * 1024,
        bodyMemoryBudget: Int = 128 << 20
    ) {
        self.bodyMemoryBudget = bodyMemoryBudget
        self.perClientConnectionLimit = perClientConnectionLimit
        self.headTimeout = headTimeout
        self.maxURLLength = maxURLLength
        self.host = host
        self.port = port
        self.threadPoolSize = threadPoolSize
        self.connectionLimit = connectionLimit
        self.connectionTimeout = connectionTimeout
        self.maxBodySize = maxBodySize
        self.connectionMemory = connectionMemory
    }
}

/// A server's TLS identity: its private key and certificate chain (server certificate first), both PEM.
public struct TLSIdentity: Sendable, Equatable {
    public var privateKeyPEM: String
    public var certificateChainPEM: String

    public init(privateKeyPEM: String, certificateChainPEM: String) {
        self.privateKeyPEM = privateKeyPEM
        self.certificateChainPEM = certificateChainPEM
    }
}

/// Why a server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What failed, in words.
    public var message: String
    /// The ``message``.
    public var description: String { message }
}
