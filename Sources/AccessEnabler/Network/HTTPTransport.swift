import Foundation
import WireDates
import Locking
import PassProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends the SDK's HTTP requests with URLSession and reports each exchange. Never follows redirects: the SDK's
/// calls are plain API calls; redirect chains belong to the web view.
///
/// Its calls are `nonisolated(nonsending)`: they run on the engine that awaits them, so an answer comes back to the
/// engine in one hop from URLSession's thread, and recording the exchange needs no hop at all.
final class HTTPTransport: Sendable {
    struct Answer: Sendable {
        var status: Int
        var body: String
        var headers: [String: String]
    }

    /// Why no answer came.
    struct Unreachable: Error, Sendable {
        var reason: String
        /// The URLSession error's domain and code (for ``RetryPolicy``).
        var domain: String = NSURLErrorDomain
        var code: Int = NSURLErrorUnknown
    }

    private let session: URLSession
    /// The newest answer's `Date` header and when it arrived.
    private let serverClock = Mutex<(date: Date, receivedAt: ContinuousClock.Instant)?>(nil)
    /// Publishes an exchange; awaited before the caller sees the answer, so the exchange precedes, in the event
    /// stream, whatever the caller does with it (the callback it leads to).
    let record: nonisolated(nonsending) @Sendable (HTTPExchange) async -> Void
    let commonHeaders: @Sendable () -> [String: String]
    /// Which failures are sent again, and how often (`HTTP_RETRY_LIMIT`).
    let retry: RetryPolicy

    init(
        timeout: TimeInterval, retry: RetryPolicy = RetryPolicy(), commonHeaders: @escaping @Sendable () -> [String: String],
        record: nonisolated(nonsending) @escaping @Sendable (HTTPExchange) async -> Void
    ) {
        self.retry = retry
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        // No URL cache: with one, a cancelled request can crash swift-corelibs-foundation (issue #3296).
        configuration.urlCache = nil
        self.record = record
        self.commonHeaders = commonHeaders
        self.session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }

    nonisolated(nonsending) func get(_ url: URL, query: [(String, String)] = [], headers: @autoclosure () -> [String: String] = [:]) async throws(Unreachable) -> Answer {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        if !query.isEmpty {
            components.percentEncodedQuery = ((components.percentEncodedQuery.map { [$0] } ?? []) + [Self.encode(query)]).joined(separator: "&")
        }
        var request = URLRequest(url: components.url!)
        request.httpMethod = "GET"
        return try await send(request, parameters: query, headers: headers)
    }

    nonisolated(nonsending) func post(_ url: URL, form: [(String, String)], headers: @autoclosure () -> [String: String] = [:]) async throws(Unreachable) -> Answer {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(Self.encode(form).utf8)
        return try await send(request, parameters: form, headers: headers)
    }

    /// A JSON body (REST API v2's registration and decisions). The exchange records the body's top-level string
    /// fields (and string arrays, comma-joined) as its parameters, so redaction by name applies to them.
    nonisolated(nonsending) func post(_ url: URL, json: Data, headers: @autoclosure () -> [String: String] = [:]) async throws(Unreachable) -> Answer {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = json
        return try await send(request, parameters: Self.recordedFields(json), headers: headers)
    }

    /// The top-level string fields of a JSON object, and its arrays of strings comma-joined, sorted by name.
    static func recordedFields(_ json: Data) -> [(String, String)] {
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: json) else { return [] }
        return object.keys.sorted().compactMap { key in
            switch object[key] {
            case .string(let value)?: (key, value)
            case .array(let items)?:
                items.allSatisfy({ if case .string = $0 { true } else { false } }) ? (key, items.compactMap(\.plainText).joined(separator: ",")) : nil
            default: nil
            }
        }
    }

    nonisolated(nonsending) func delete(_ url: URL, query: [(String, String)], headers: @autoclosure () -> [String: String] = [:]) async throws(Unreachable) -> Answer {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = Self.encode(query)
        var request = URLRequest(url: components.url!)
        request.httpMethod = "DELETE"
        return try await send(request, parameters: query, headers: headers)
    }

    /// Sends `request`, and again as ``RetryPolicy`` allows: each try is recorded as its own exchange; the caller sees
    /// the last answer (or failure). `headers` is evaluated for every try, so a signed header (the REST API's HMAC
    /// with its nonce and request time) is signed anew rather than replayed.
    private nonisolated(nonsending) func send(_ request: URLRequest, parameters: [(String, String)], headers: () -> [String: String]) async throws(Unreachable)
        -> Answer
    {
        var attempt = 1
        while true {
            do {
                let answer = try await sendOnce(request, parameters: parameters, headers: headers())
                guard retry.shouldRetry(status: answer.status, attempt: attempt) else { return answer }
            } catch {
                guard retry.shouldRetry(errorDomain: error.domain, code: error.code, attempt: attempt) else { throw error }
            }
            attempt += 1
            try? await Task.sleep(for: retry.delay)
        }
    }

    private nonisolated(nonsending) func sendOnce(_ request: URLRequest, parameters: [(String, String)], headers: [String: String]) async throws(Unreachable)
        -> Answer
    {
        var request = request
        let allHeaders = commonHeaders().merging(headers) { $1 }
        for (name, value) in allHeaders { request.setValue(value, forHTTPHeaderField: name) }
        let started = ContinuousClock.now
        func exchange(status: Int?, body: String?, failure: String?, serverDate: Date? = nil, errorCode: String? = nil) -> HTTPExchange {
            var redactedHeaders = allHeaders
            if let authorization = redactedHeaders["Authorization"] { redactedHeaders["Authorization"] = EntitlementEvent.shorten(authorization) }
            let elapsed = ContinuousClock.now - started
            return HTTPExchange(
                method: request.httpMethod ?? "GET", url: request.url?.absoluteString ?? "",
                parameters: Dictionary(parameters, uniquingKeysWith: { a, b in a + "," + b }), headers: redactedHeaders,
                status: status, responseBody: body, failure: failure,
                durationMs: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15,
                serverDate: serverDate, errorCode: errorCode)
        }
        do {
            let (data, response) = try await session.data(for: request)
            let http = response as? HTTPURLResponse
            let body = String(decoding: data, as: UTF8.self)
            var headers: [String: String] = [:]
            for (name, value) in http?.allHeaderFields ?? [:] { headers[String(describing: name).lowercased()] = String(describing: value) }
            let serverDate = headers["date"].flatMap(HTTPDate.parse)
            if let serverDate { serverClock.withLock { $0 = (serverDate, ContinuousClock.now) } }
            await record(exchange(
                status: http?.statusCode ?? 0, body: body, failure: nil, serverDate: serverDate, errorCode: headers["authzf-error-code"]))
            return Answer(status: http?.statusCode ?? 0, body: body, headers: headers)
        } catch {
            let reason = (error as NSError).localizedDescription
            await record(exchange(status: nil, body: nil, failure: reason))
            throw Unreachable(reason: reason, domain: (error as NSError).domain, code: (error as NSError).code)
        }
    }

    /// How far the server's clock is ahead of `localNow` (negative: behind), from the newest answer's `Date`
    /// header; nil before any answer carried one. Whole seconds: the header has no finer resolution.
    func serverClockOffset(localNow: Date) -> TimeInterval? {
        guard let seen = serverClock.withLock({ $0 }) else { return nil }
        let since = ContinuousClock.now - seen.receivedAt
        let localThen = localNow.addingTimeInterval(-(Double(since.components.seconds) + Double(since.components.attoseconds) / 1e18))
        return seen.date.timeIntervalSince(localThen)
    }

    static func encode(_ items: [(String, String)]) -> String {
        items.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// Percent-encodes every byte but the unreserved ASCII ones (RFC 3986 §2.3), UTF-8 first. By hand: Foundation's
    /// `addingPercentEncoding` over a several-kilobyte token was a large part of an authorization's CPU.
    static func escape(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Stops URLSession from following redirects: a redirect is an answer the caller judges (the SDK's transport and the
/// simulator's web view).
package final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    package override init() {}

    package func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
