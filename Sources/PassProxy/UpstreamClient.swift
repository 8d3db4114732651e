import AsyncHTTPClient
import Foundation
import Locking
import MicroHTTP
import NIOCore
import NIOHTTP1
import NIOSSL

/// Forwards a request to the one upstream service, faithfully: method, path, query, body bytes and headers as they
/// came (hop-by-hop headers aside), redirects and cookies passed back to the client, not followed or kept here.
/// A bad upstream gives an ``UpstreamFailure`` saying what went wrong.
///
/// On AsyncHTTPClient (SwiftNIO, a pool of keep-alive connections): Foundation's `URLSession` on Linux (libcurl on one
/// queue) passed 0.03x of the direct request rate on the REST hot paths, measured in `make bench`.
struct UpstreamClient: Sendable {
    let upstream: URL
    let timeout: TimeInterval
    let maxBodySize: Int
    let client: HTTPClient

    /// Headers that belong to one connection, not to the message (RFC 9110 §7.6.1), and the ones the transport sets
    /// itself. `Accept-Encoding` is forwarded as it came (answers come back as the upstream encoded them: nothing
    /// here decodes them).
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "trailers",
        "transfer-encoding", "upgrade", "host", "content-length", "expect", "proxy-connection", "via",
    ]

    /// What the proxy adds to `Via`.
    static let via = "1.1 passconsole-proxy"

    init(upstream: URL, timeout: TimeInterval, maxBodySize: Int) {
        self.upstream = upstream
        self.timeout = timeout
        self.maxBodySize = maxBodySize
        base = Self.base(of: upstream)
        client = Self.client(timeout: timeout)
    }

    /// One HTTP client per timeout, for the life of the process (its connections are pooled; it is never shut down,
    /// so no proxy has to remember to).
    private static let clients = Mutex<[Int: HTTPClient]>([:])

    static func client(timeout: TimeInterval) -> HTTPClient {
        let milliseconds = Int(timeout * 1000)
        return clients.withLock { clients in
            if let client = clients[milliseconds] { return client }
            var configuration = HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: .seconds(5), read: .milliseconds(Int64(milliseconds))))
            configuration.decompression = .disabled
            configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[milliseconds] = client
            return client
        }
    }

    /// Starts forwarding `request`; `reply` gets the upstream's answer, ready to send back, or why there is none.
    /// Called once, on one of NIO's event loops: no Swift task between the server's thread and the upstream (the
    /// task hop and AsyncHTTPClient's async API cost the proxy more CPU per request than the backend behind it,
    /// measured in `make bench`).
    func forward(_ request: Request, reply: @escaping @Sendable (Result<Response, UpstreamFailure>) -> Void) {
        let outgoing: HTTPClient.Request
        do {
            outgoing = try Self.outgoing(request, base: base)
        } catch {
            return reply(.failure(error))
        }
        let delegate = ResponseAccumulator(request: outgoing, maxBodySize: min(maxBodySize, Self.largestBody))
        let deadline = NIODeadline.now() + .milliseconds(Int64(timeout * 1000))
        let (upstream, maxBodySize) = (self.upstream, self.maxBodySize)
        client.execute(request: outgoing, delegate: delegate, deadline: deadline).futureResult.whenComplete { result in
            switch result {
            case .success(let answer):
                var headers: [(name: String, value: String)] = []
                headers.reserveCapacity(answer.headers.count)
                for (name, value) in answer.headers where !Self.hopByHop.contains(name.lowercased()) {
                    headers.append((name, value))
                }
                let body = answer.body.map { Data($0.readableBytesView) } ?? Data()
                reply(.success(Response(status: HTTPStatus(Int(answer.status.code)), headers: headers, body: .data(body))))
            case .failure(let error):
                reply(.failure(UpstreamFailure(error, upstream: upstream, maxBodySize: maxBodySize)))
            }
        }
    }

    /// The largest body a `ByteBuffer` (and so the accumulator) holds.
    static let largestBody = Int(exactly: UInt32.max) ?? Int(Int32.max)

    /// The upstream's URL without a trailing `/`, to which each request's path and query are appended; nil when the
    /// configured URL cannot be used.
    let base: String?

    static func base(of upstream: URL) -> String? {
        guard var components = URLComponents(url: upstream, resolvingAgainstBaseURL: false) else { return nil }
        if components.percentEncodedPath.hasSuffix("/") { components.percentEncodedPath.removeLast() }
        components.percentEncodedQuery = nil
        components.fragment = nil
        return components.string
    }

    /// The request as it goes to the upstream.
    static func outgoing(_ request: Request, base: String?) throws(UpstreamFailure) -> HTTPClient.Request {
        guard let base else {
            throw UpstreamFailure(status: .badGateway, code: "upstream_invalid", message: "The upstream URL cannot be used.")
        }
        var url = base + percentEncodedPath(request.path)
        if !request.queryItems.isEmpty { url += "?" + FormEncoding.encode(request.queryItems) }
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 2)
        for (name, value) in request.headers where !hopByHop.contains(name.lowercased()) {
            headers.add(name: name, value: value)
        }
        headers.add(name: "X-Forwarded-For", value: request.remoteAddress)
        // RFC 9110 §7.6.3: a proxy adds itself to Via. This project's backend reads it and leaves the exchange to the
        // proxy's record (one record per exchange when the proxy sits in front of it).
        headers.replaceOrAdd(name: "Via", value: (request.header("Via").map { $0 + ", " } ?? "") + via)
        let body: HTTPClient.Body? = !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method)
            ? .byteBuffer(ByteBuffer(bytes: request.body)) : nil
        do {
            return try HTTPClient.Request(url: url, method: HTTPMethod(rawValue: request.method), headers: headers, body: body)
        } catch {
            throw UpstreamFailure(status: .badRequest, code: "invalid_target", message: "The request's path cannot be forwarded.")
        }
    }

    /// The path as it goes on the wire again (percent-encoded where it must be).
    static func percentEncodedPath(_ path: String) -> String {
        path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
    }
}

/// Why the upstream gave no usable answer, as the client hears it: 502 or 504 with words.
struct UpstreamFailure: Error {
    var status: HTTPStatus
    var code: String
    var message: String

    init(status: HTTPStatus, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    init(_ error: any Error, upstream: URL, maxBodySize: Int) {
        let host = upstream.host ?? upstream.absoluteString
        let said = String(describing: error)
        if let failure = error as? HTTPClientError, [.deadlineExceeded, .readTimeout].contains(failure) {
            self.init(status: HTTPStatus(504), code: "upstream_timeout", message: "The upstream \(host) did not answer in time.")
        } else if error is NIOTooManyBytesError || error is ResponseAccumulator.ResponseTooBigError {
            self.init(status: .badGateway, code: "upstream_too_large",
                message: "The upstream's answer is larger than the \(maxBodySize) bytes the proxy passes on.")
        } else if error is NIOSSLError || error is BoringSSLError || said.contains("SSL") || said.contains("certificate") {
            self.init(status: .badGateway, code: "upstream_tls", message: "The TLS connection to the upstream \(host) failed: \(said)")
        } else if error is HTTPParserError || said.contains("HTTPParserError") {
            self.init(status: .badGateway, code: "upstream_garbage", message: "The upstream \(host) answered something that is not HTTP.")
        } else if let failure = error as? HTTPClientError, failure == .remoteConnectionClosed {
            self.init(status: .badGateway, code: "upstream_garbage", message: "The upstream \(host) closed the connection without an answer.")
        } else if let failure = error as? HTTPClientError, failure == .connectTimeout {
            self.init(status: .badGateway, code: "upstream_unreachable", message: "The upstream \(host) cannot be reached: connecting timed out.")
        } else if said.contains("refused") || said.contains("connect") || error is IOError {
            self.init(status: .badGateway, code: "upstream_unreachable", message: "The upstream \(host) cannot be reached: \(said)")
        } else {
            self.init(status: .badGateway, code: "upstream_failed", message: "The request to the upstream \(host) failed: \(said)")
        }
    }

    var response: Response {
        HTTPError(status, code: code, message: message).response
    }
}
