import Foundation
import MicroHTTP
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Forwards a request to the one upstream service, faithfully: method, path, query, body bytes and headers as they
/// came (hop-by-hop headers aside), redirects and cookies passed back to the client, not followed or kept here.
/// A bad upstream gives an ``UpstreamFailure`` saying what went wrong.
final class UpstreamClient: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    let upstream: URL
    let timeout: TimeInterval
    let maxBodySize: Int
    /// `@unchecked Sendable`: set once in `init`, then only read.
    private var session: URLSession!

    /// Headers that belong to one connection, not to the message (RFC 9110 §7.6.1), and the ones the transport sets
    /// itself. `Accept-Encoding` is not forwarded: the transport would decode a compressed answer while its
    /// `Content-Encoding` header still said otherwise; the upstream answers uncompressed instead.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "trailers",
        "transfer-encoding", "upgrade", "host", "content-length", "expect", "accept-encoding", "proxy-connection", "via",
    ]

    /// What the proxy adds to `Via`.
    static let via = "1.1 passconsole-proxy"

    init(upstream: URL, timeout: TimeInterval, maxBodySize: Int) {
        self.upstream = upstream
        self.timeout = timeout
        self.maxBodySize = maxBodySize
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    /// Redirects go back to the client as they are (its own cookies and next request follow them).
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// The upstream's answer to `request`, ready to send back.
    func forward(_ request: Request) async throws(UpstreamFailure) -> Response {
        guard var components = URLComponents(url: upstream, resolvingAgainstBaseURL: false) else {
            throw UpstreamFailure(status: .badGateway, code: "upstream_invalid", message: "The upstream URL \(upstream) cannot be used.")
        }
        let base = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.percentEncodedPath = base + Self.percentEncodedPath(request.path)
        components.percentEncodedQuery = request.queryItems.isEmpty ? nil : FormEncoding.encode(request.queryItems)
        guard let url = components.url else {
            throw UpstreamFailure(status: .badRequest, code: "invalid_target", message: "The request's path cannot be forwarded.")
        }
        var outgoing = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        outgoing.httpMethod = request.method
        outgoing.httpShouldHandleCookies = false
        for (name, value) in request.headers where !Self.hopByHop.contains(name.lowercased()) {
            outgoing.addValue(value, forHTTPHeaderField: name)
        }
        outgoing.setValue(request.remoteAddress, forHTTPHeaderField: "X-Forwarded-For")
        // RFC 9110 §7.6.3: a proxy adds itself to Via. This project's backend reads it and leaves the exchange to the
        // proxy's record (one record per exchange when the proxy sits in front of it).
        let via = request.header("Via").map { $0 + ", " } ?? ""
        outgoing.setValue(via + Self.via, forHTTPHeaderField: "Via")
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) { outgoing.httpBody = request.body }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: outgoing)
        } catch {
            throw UpstreamFailure(error, upstream: upstream)
        }
        guard let http = response as? HTTPURLResponse else {
            throw UpstreamFailure(status: .badGateway, code: "upstream_garbage", message: "The upstream's answer is not HTTP.")
        }
        guard data.count <= maxBodySize else {
            throw UpstreamFailure(status: .badGateway, code: "upstream_too_large",
                message: "The upstream answered \(data.count) bytes; the proxy passes at most \(maxBodySize).")
        }
        var headers: [(name: String, value: String)] = []
        for (key, value) in http.allHeaderFields {
            guard let name = key as? String, let value = value as? String, !Self.hopByHop.contains(name.lowercased()) else { continue }
            if name.lowercased() == "set-cookie" {
                // Foundation joins several Set-Cookie headers with ", ": give each back on its own.
                for cookie in Self.splitSetCookie(value) { headers.append((name, cookie)) }
            } else {
                headers.append((name, value))
            }
        }
        return Response(status: HTTPStatus(http.statusCode), headers: headers, body: .data(data))
    }

    /// The path as it goes on the wire again (percent-encoded where it must be).
    static func percentEncodedPath(_ path: String) -> String {
        path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
    }

    /// `a=1; Path=/, b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT` → the two cookies (a comma inside `Expires` stays).
    static func splitSetCookie(_ joined: String) -> [String] {
        var cookies: [String] = []
        var current = ""
        for part in joined.components(separatedBy: ", ") {
            // A new cookie starts with `name=` before any `;`; an Expires date's second half does not.
            let head = part.split(separator: ";", maxSplits: 1).first.map(String.init) ?? part
            if !current.isEmpty, head.contains("="), !head.contains(" ") {
                cookies.append(current)
                current = part
            } else {
                current = current.isEmpty ? part : current + ", " + part
            }
        }
        if !current.isEmpty { cookies.append(current) }
        return cookies
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

    init(_ error: any Error, upstream: URL) {
        let where_ = upstream.host ?? upstream.absoluteString
        switch (error as? URLError)?.code {
        case .timedOut?:
            self.init(status: HTTPStatus(504), code: "upstream_timeout", message: "The upstream \(where_) did not answer in time.")
        case .cannotConnectToHost?, .cannotFindHost?, .networkConnectionLost?, .notConnectedToInternet?, .dnsLookupFailed?:
            self.init(status: .badGateway, code: "upstream_unreachable", message: "The upstream \(where_) cannot be reached: \(error.localizedDescription)")
        case .secureConnectionFailed?, .serverCertificateUntrusted?, .serverCertificateHasBadDate?, .serverCertificateHasUnknownRoot?,
            .serverCertificateNotYetValid?, .clientCertificateRejected?, .clientCertificateRequired?:
            self.init(status: .badGateway, code: "upstream_tls", message: "The TLS connection to the upstream \(where_) failed: \(error.localizedDescription)")
        case .badServerResponse?, .cannotParseResponse?, .cannotDecodeRawData?, .cannotDecodeContentData?:
            self.init(status: .badGateway, code: "upstream_garbage", message: "The upstream \(where_) answered something that is not HTTP.")
        default:
            self.init(status: .badGateway, code: "upstream_failed", message: "The request to the upstream \(where_) failed: \(error.localizedDescription)")
        }
    }

    var response: Response {
        HTTPError(status, code: code, message: message).response
    }
}
