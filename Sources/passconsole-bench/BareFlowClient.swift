import AccessEnabler
import Foundation
import PassProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP requests of the SDK's flows made by hand with one URLSession and nothing else: the floor the SDK's
/// time to media token is compared with. Same methods, URLs, form fields (same order and encoding) and user
/// agents as the SDK and its web view; parses only what the next request needs.
struct BareFlowClient: Sendable {
    /// `…/adobe-services/1.0`, as the SDK's `sp`.
    let sp: String
    let session: URLSession
    let names: BenchNames

    static let sdkAgent = "AdobePassNativeClient/\(AccessEnabler.version) (PassConsole)"
    static let browserAgent =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 Version/17.2 Mobile Safari/604.1"

    /// What a login left: enough to ask for media tokens.
    struct Login: Sendable {
        var deviceID: String
        var guid: String
        var authzToken: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(serviceProvider: URL, names: BenchNames) {
        sp = serviceProvider.absoluteString + "/1.0"
        self.names = names
        session = Self.makeSession()
    }

    /// An ephemeral session that never follows redirects, keeps no cookies and no cache (as the SDK's).
    static func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 20
        return URLSession(configuration: configuration, delegate: StopRedirects(), delegateQueue: nil)
    }

    /// Cold: configuration, the web login (authenticate → login page → credentials → SAML consumer), sessionDevice,
    /// authorizeDevice, deviceShortAuthorize. Returns the media token, the login and the number of requests sent.
    /// A new app has no open connection: a new URLSession for the app's own requests, and `browser` for the login
    /// pages, which a browser loads (a web view or Safari, never the app's connection) — made by the caller before
    /// the flow, as the SDK's app makes its web view, and invalidated here.
    func cold(deviceID: String, browser: URLSession, marks: Marks? = nil) async throws -> (media: String, login: Login, requests: Int) {
        let session = Self.makeSession()
        marks?.start()
        defer {
            session.finishTasksAndInvalidate()
            browser.finishTasksAndInvalidate()
        }
        var count = 0
        _ = try await send(get(sp + "/config/" + names.requestor, [("client_type", Platform.iOS.rawValue)]), 200, &count, session: session, marks: marks)

        let query: [(String, String)] = [
            ("domain_name", PassConstants.SP_URL_DOMAIN_NAME), ("noflash", "true"), ("no_iframe", "true"), ("mso_id", names.mvpd),
            ("requestor_id", names.requestor), ("device_id", deviceID), ("redirect_url", PassConstants.ADOBEPASS_REDIRECT_URL),
            ("client_type", Platform.iOS.clientType), ("client_version", AccessEnabler.version),
        ]
        let start = get(sp + "/authenticate/saml", query, agent: Self.browserAgent)
        let pageURL = try await send(start, 302, &count, session: browser, marks: marks).location
        guard let loginID = URLComponents(url: pageURL, resolvingAgainstBaseURL: true)?.queryItems?.first(where: { $0.name == "login" })?.value
        else { throw Failure(description: "authenticate/saml redirected to \(pageURL), without login=") }
        _ = try await send(URLRequest(url: pageURL, agent: Self.browserAgent), 200, &count, session: browser, marks: marks)
        let form = [("action", "signin"), ("login", loginID), ("password", names.password), ("username", names.user)]
        let action = URL(string: pageURL.path, relativeTo: pageURL)!.absoluteURL
        let consumer = try await send(post(action, form, agent: Self.browserAgent), 302, &count, session: browser, marks: marks).location
        let end = try await send(URLRequest(url: consumer, agent: Self.browserAgent), 302, &count, session: browser, marks: marks).location
        guard end.scheme == "adobepass" else { throw Failure(description: "the login ended at \(end), not the app's URL") }

        let sessionForm = [("_method", "GET"), ("requestor_id", names.requestor), ("device_id", deviceID)]
        let authnAnswer = try await send(post(sp + "/sessionDevice", sessionForm), 200, &count, session: session, marks: marks).body
        guard let authn = Self.element("authnToken", in: authnAnswer).map(Self.unescape),
            let guid = Self.element("simpleTokenAuthenticationGuid", in: authn)
        else { throw Failure(description: "no authnToken with a GUID in the sessionDevice answer") }
        let authorizeForm = [("resource_id", names.resource), ("requestor_id", names.requestor), ("mso_id", names.mvpd),
                             ("device_id", deviceID), ("userMeta", "1"), ("authentication_token", authn)]
        let authzAnswer = try await send(post(sp + "/authorizeDevice", authorizeForm), 200, &count, session: session, marks: marks).body
        guard let authz = Self.element("authzToken", in: authzAnswer).map(Self.unescape) else {
            throw Failure(description: "no authzToken in the authorizeDevice answer")
        }
        let login = Login(deviceID: deviceID, guid: guid, authzToken: authz)
        let media = try await shortAuthorize(login, &count, session: session, marks: marks)
        marks?.mark("media token")
        return (media, login, count)
    }

    /// Warm: one deviceShortAuthorize with the stored authZ token. Returns the media token and the requests sent.
    /// `freshSession` (diagnostic): a new URLSession, hence a new connection, for the request — as the SDK does.
    func warm(_ login: Login, freshSession: Bool = false) async throws -> (media: String, requests: Int) {
        var count = 0
        let media = try await shortAuthorize(login, &count, session: freshSession ? Self.makeSession() : session)
        return (media, count)
    }

    private func shortAuthorize(_ login: Login, _ count: inout Int, session: URLSession? = nil, marks: Marks? = nil) async throws -> String {
        let form = [("session_guid", login.guid), ("hashed_guid", "false"), ("authz_token", login.authzToken),
                    ("requestor_id", names.requestor), ("mso_id", names.mvpd), ("device_id", login.deviceID)]
        let media = try await send(post(sp + "/deviceShortAuthorize", form), 200, &count, session: session ?? self.session, marks: marks).body
        guard media.hasPrefix("<signatureInfo>") else { throw Failure(description: "the media token does not start with <signatureInfo>") }
        return media
    }

    // MARK: - HTTP

    private func get(_ url: String, _ query: [(String, String)], agent: String = Self.sdkAgent) -> URLRequest {
        URLRequest(url: URL(string: url + "?" + Self.encode(query))!, agent: agent)
    }

    private func post(_ url: String, _ form: [(String, String)]) -> URLRequest { post(URL(string: url)!, form) }

    private func post(_ url: URL, _ form: [(String, String)], agent: String = Self.sdkAgent) -> URLRequest {
        var request = URLRequest(url: url, agent: agent)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(Self.encode(form).utf8)
        return request
    }

    /// Sends one request and checks its status; a redirect's Location comes back resolved.
    private func send(_ request: URLRequest, _ expected: Int, _ count: inout Int, session: URLSession? = nil, marks: Marks? = nil) async throws
        -> (body: String, location: URL)
    {
        count += 1
        let session = session ?? self.session
        marks?.mark("  (sent \(request.url?.lastPathComponent ?? "?"))")
        let (data, response) = try await session.data(for: request)
        marks?.mark("answer \(request.httpMethod ?? "GET") \(request.url?.path ?? "?")")
        let http = response as? HTTPURLResponse
        guard http?.statusCode == expected else {
            throw Failure(description: "\(request.url?.path ?? "?") answered \(http?.statusCode ?? 0), not \(expected)")
        }
        var location = request.url!
        if let value = http?.value(forHTTPHeaderField: "Location") {
            guard let url = URL(string: value, relativeTo: request.url)?.absoluteURL else { throw Failure(description: "bad Location \(value)") }
            location = url
        }
        return (String(decoding: data, as: UTF8.self), location)
    }

    static func encode(_ items: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return items.map { "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
            .joined(separator: "&")
    }

    static func element(_ name: String, in xml: String) -> String? {
        guard let open = xml.range(of: "<\(name)>"), let close = xml.range(of: "</\(name)>", range: open.upperBound..<xml.endIndex) else {
            return nil
        }
        return String(xml[open.upperBound..<close.lowerBound])
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

extension URLRequest {
    fileprivate init(url: URL, agent: String) {
        self.init(url: url)
        setValue(agent, forHTTPHeaderField: "User-Agent")
    }
}

/// When each step of a bare flow ended, in ms from its start (`bench-flow --timeline`).
final class Marks: @unchecked Sendable {
    private let lock = NSLock()
    private var began = ContinuousClock.now
    private var marked: [(String, Double)] = []

    func start() { lock.withLock { began = .now } }

    func mark(_ step: String) {
        let elapsed = ContinuousClock.now - lock.withLock { began }
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        lock.withLock { marked.append((step, ms)) }
    }

    var steps: [(String, Double)] { lock.withLock { marked } }
}

/// A redirect is an answer to read, not to follow.
final class StopRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
