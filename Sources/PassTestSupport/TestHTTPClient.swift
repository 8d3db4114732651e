import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An answer as a test sees it.
public struct HTTPResult: Sendable {
    /// The status code.
    public var status: Int
    /// Headers with lower-cased names (a repeated header keeps its last value; see ``setCookies``).
    public var headers: [String: String]
    /// Every `Set-Cookie` value.
    public var setCookies: [String]
    /// The body.
    public var body: Data

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as a JSON object (empty when it is not one).
    public var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
    }

    /// A header by name, case-insensitively.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A real HTTP client over loopback that never follows redirects on its own, so tests see every hop.
public final class TestHTTPClient: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    /// The server's base URL, e.g. `http://127.0.0.1:8081`.
    public let baseURL: String
    private var session: URLSession!

    /// Creates a client for `baseURL`; a request fails after `timeout` seconds without an answer.
    public init(baseURL: String, timeout: TimeInterval = 30) {
        self.baseURL = baseURL
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        // No URLCache: with one, cancelling a task can trap in swift-corelibs-foundation (the cache lookup runs on
        // another queue, so the cancel's failure reaches a task already gone from the registry; seen in a make test run).
        configuration.urlCache = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    /// Refuses every redirect: tests read the `Location` themselves.
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// Sends a request; `pathOrURL` is a path on ``baseURL`` or an absolute URL.
    public func send(
        _ method: String, _ pathOrURL: String, headers: [String: String] = [:], body: Data? = nil
    ) async throws -> HTTPResult {
        let url = URL(string: pathOrURL.hasPrefix("http") ? pathOrURL : baseURL + pathOrURL)!
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var lowered: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            lowered[String(describing: name).lowercased()] = String(describing: value)
        }
        let cookies = (lowered["set-cookie"] ?? "").isEmpty ? [] : Self.splitCookies(lowered["set-cookie"]!)
        return HTTPResult(status: http.statusCode, headers: lowered, setCookies: cookies, body: data)
    }

    /// `GET`.
    public func get(_ pathOrURL: String, headers: [String: String] = [:]) async throws -> HTTPResult {
        try await send("GET", pathOrURL, headers: headers)
    }

    /// The status of `GET pathOrURL`, asked again every `interval` until it is `status` or `within` has passed (a server
    /// coming back after an outage); returns the last status seen.
    public func status(of pathOrURL: String, becoming status: Int, within: Duration, every interval: Duration = .milliseconds(200))
        async throws -> Int
    {
        let deadline = ContinuousClock.now + within
        var seen = try await get(pathOrURL).status
        while seen != status, ContinuousClock.now < deadline {
            try await Task.sleep(for: interval)
            seen = try await get(pathOrURL).status
        }
        return seen
    }

    /// `DELETE`.
    public func delete(_ pathOrURL: String, headers: [String: String] = [:]) async throws -> HTTPResult {
        try await send("DELETE", pathOrURL, headers: headers)
    }

    /// `POST` of a form body.
    public func post(_ pathOrURL: String, form: [(String, String)], headers: [String: String] = [:]) async throws
        -> HTTPResult
    {
        var headers = headers
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        let body = form.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
        return try await send("POST", pathOrURL, headers: headers, body: Data(body.utf8))
    }

    /// `POST` of a JSON body.
    public func post(_ pathOrURL: String, json: Data, headers: [String: String] = [:]) async throws -> HTTPResult {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return try await send("POST", pathOrURL, headers: headers, body: json)
    }

    /// Percent-encodes a query or form component.
    public static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? text
    }

    /// Splits a folded `Set-Cookie` header into cookies (commas inside `Expires` are not used by our servers).
    static func splitCookies(_ header: String) -> [String] {
        header.components(separatedBy: ", ").filter { $0.contains("=") }
    }
}
