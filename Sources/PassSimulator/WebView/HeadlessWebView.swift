import AccessEnabler
import Foundation
import PassProtocol
import Locking
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A web view without a screen, for Linux apps, `passconsole flow` and tests: it follows redirects, shows the
/// HTML page it lands on (with its forms), submits forms, keeps cookies, and stops at the app's redirect URL
/// (any non-HTTP scheme such as `adobepass://ios.app`) — the URL the app hands to `handleExternalURL`.
///
/// It walks the MVPD page shapes a WKWebView meets (spec §5.2.2–5.2.3) the way a WKWebView does: `302`s,
/// `<meta http-equiv="refresh">`, and forms that a page's script submits as it loads (the SAML HTTP-POST binding's
/// hidden `SAMLRequest`/`SAMLResponse` + `RelayState`). It runs no JavaScript: a `<script>` that calls `submit()` is
/// taken to submit the form it names (`document.forms[N]`, else the first). With `javaScriptEnabled: false` it
/// leaves such pages showing, as a browser without JavaScript would, and ``signIn(at:username:password:)`` presses
/// their `<noscript>` button as a person would — as it presses an intermediate page's *Resume*.
///
/// ```swift
/// let webView = HeadlessWebView()
/// let end = try await webView.signIn(at: loginURL, username: "carol", password: "carol123")
/// enabler.handleExternalURL(end)
/// ```
public final class HeadlessWebView: Sendable {
    /// What loading ended on.
    public enum Outcome: Sendable, Equatable {
        /// The chain reached a URL with the app's scheme; the web view stops there, like a real app intercepting it.
        case redirected(to: String)
        /// An HTML page (a login form, an error, a logout confirmation).
        case page(Page)
    }

    /// A loaded HTML page.
    public struct Page: Sendable, Equatable {
        /// The URL the page was loaded from (after redirects).
        public var url: URL
        /// Its HTTP status.
        public var status: Int
        /// Its body.
        public var html: String
        /// The page's forms, in document order.
        public var forms: [Form] { Form.parse(html, base: url) }
        /// The text of the page's alert (e.g. "The username or password is not correct"), if any.
        public var alert: String? { HTMLText.firstMatch(html, #"role="alert"[^>]*>([^<]*)<"#).map(HTMLText.unescape) }
        /// The page title.
        public var title: String? { HTMLText.firstMatch(html, #"<title>([^<]*)</title>"#).map(HTMLText.unescape) }
    }

    /// Why loading failed.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, for a person (the page's alert, or the network error).
        public var message: String
        /// The ``message``.
        public var description: String { message }
    }

    private let session: URLSession
    private let cookies = Mutex<[String: [String: String]]>([:])
    private let requests = Mutex(0)
    private let userAgent: String
    private let maximumRedirects: Int
    private let javaScriptEnabled: Bool

    /// Creates a web view. The default user agent is Safari's, so MVPDs that refuse embedded browsers accept it
    /// (pass another to see that refusal).
    public init(
        userAgent: String = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 Version/17.2 Mobile Safari/604.1",
        maximumRedirects: Int = 20, timeout: TimeInterval = 20, javaScriptEnabled: Bool = true
    ) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.timeoutIntervalForRequest = timeout
        configuration.urlCache = nil
        self.session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
        self.userAgent = userAgent
        self.maximumRedirects = maximumRedirects
        self.javaScriptEnabled = javaScriptEnabled
    }

    /// How many HTTP requests this web view has sent: every page load, form submission and redirect followed counts
    /// one (the redirect to the app's URL does not: it is never sent). Benchmarks count round trips with it.
    public var requestCount: Int { requests.withLock { $0 } }

    /// Loads `url` and follows redirects until a page or the app's redirect URL.
    public func load(_ url: String) async throws(Failure) -> Outcome {
        guard let target = URL(string: url) else { throw Failure(message: "Not a URL: \(url)") }
        return try await follow(URLRequest(url: target))
    }

    /// Submits `form` with its own fields overridden by `fields`, pressing the button `button` (name=value).
    public func submit(_ form: Form, fields: [String: String] = [:], button: (name: String, value: String)? = nil) async throws(Failure)
        -> Outcome
    {
        try await follow(try Self.request(submitting: form, fields: fields, button: button))
    }

    static func request(submitting form: Form, fields: [String: String] = [:], button: (name: String, value: String)? = nil)
        throws(Failure) -> URLRequest
    {
        var values = form.fields.merging(fields) { $1 }
        if let button { values[button.name] = button.value }
        let body = values.sorted { $0.key < $1.key }.map { "\(HTMLText.formEscape($0.key))=\(HTMLText.formEscape($0.value))" }
            .joined(separator: "&")
        if form.method == "GET" {
            guard var components = URLComponents(url: form.action, resolvingAgainstBaseURL: false) else {
                throw Failure(message: "Cannot submit a form to \(form.action)")
            }
            components.percentEncodedQuery = body
            guard let url = components.url else { throw Failure(message: "Cannot submit a form to \(form.action)") }
            return URLRequest(url: url)
        }
        var request = URLRequest(url: form.action)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        return request
    }

    /// The whole login: load the login URL, fill the first form that has a password field — its first text input
    /// takes the user name and its password input the password, whatever the MVPD names them — sign in, and follow
    /// the chain, pressing the only button of a page in between (an intermediate *Resume*, or a `<noscript>`
    /// *Continue* when JavaScript is off). Returns the redirect URL the chain ended at (hand it to `handleExternalURL`).
    /// - Throws: ``Failure`` with the page's message when the chain stops on a page (wrong password, refusal).
    public func signIn(at url: String, username: String, password: String) async throws(Failure) -> String {
        var outcome = try await load(url)
        var signedIn = false
        for _ in 0...maximumRedirects {
            guard case .page(let page) = outcome else { return try Self.end(outcome) }
            if let form = page.forms.first(where: { $0.hasPasswordField }) {
                if signedIn { throw Self.stopped(on: page) }  // the form again: the MVPD refused the password
                let usernameField = form.textInputNames.first ?? form.inputNames.first { $0.lowercased().contains("user") } ?? "username"
                let passwordField = form.passwordInputNames.first ?? "password"
                let button = form.buttons.first { $0.value.lowercased() != "cancel" }
                signedIn = true
                outcome = try await submit(form, fields: [usernameField: username, passwordField: password], button: button)
            } else if let form = Self.pageStep(page) {
                outcome = try await submit(form, button: form.buttons.first)
            } else {
                throw signedIn ? Self.stopped(on: page) : Failure(
                    message: "No login form at \(page.url) (HTTP \(page.status)): \(page.alert ?? page.title ?? "no message")")
            }
        }
        throw Failure(message: "More than \(maximumRedirects) pages")
    }

    /// The one form of a page in between that a person would press through: nothing to type, a button to press, on
    /// a page that is not an error.
    static func pageStep(_ page: Page) -> Form? {
        guard (200..<300).contains(page.status), page.alert == nil else { return nil }
        let forms = page.forms.filter { $0.isOnlyHidden && $0.canBeSubmitted }
        return forms.count == 1 ? forms.first : nil
    }

    static func stopped(on page: Page) -> Failure {
        Failure(message: "Stopped on \(page.url.path) (HTTP \(page.status)): \(page.alert ?? page.title ?? "no redirect")")
    }

    /// Loads the login URL and presses Cancel on the form. Returns the redirect URL (with `error=`).
    public func cancelSignIn(at url: String) async throws(Failure) -> String {
        let outcome = try await load(url)
        guard case .page(let page) = outcome, let form = page.forms.first, let cancel = form.buttons.first(where: { $0.value == "cancel" })
        else { return try Self.end(outcome) }
        return try Self.end(try await submit(form, button: cancel))
    }

    /// Follows a logout URL to its end (no user interaction). Returns the redirect URL, or throws when the chain
    /// stops on a page (an MVPD that drops the redirect URL).
    public func followLogout(_ url: String) async throws(Failure) -> String {
        try Self.end(try await load(url))
    }

    static func end(_ outcome: Outcome) throws(Failure) -> String {
        switch outcome {
        case .redirected(let url): return url
        case .page(let page): throw stopped(on: page)
        }
    }

    // MARK: - Loading

    private func follow(_ first: URLRequest) async throws(Failure) -> Outcome {
        var request = first
        for _ in 0...maximumRedirects {
            guard let url = request.url else { throw Failure(message: "Request without URL") }
            if let scheme = url.scheme?.lowercased(), scheme != "http", scheme != "https" { return .redirected(to: url.absoluteString) }
            request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
            if let cookie = cookieHeader(for: url) { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
            let data: Data
            let response: URLResponse
            requests.withLock { $0 += 1 }
            do { (data, response) = try await session.data(for: request) } catch {
                throw Failure(message: "Could not load \(url): \(error.localizedDescription)")
            }
            guard let http = response as? HTTPURLResponse else { throw Failure(message: "No HTTP answer from \(url)") }
            store(cookies: http, for: url)
            let html = String(decoding: data, as: UTF8.self)
            if (300..<400).contains(http.statusCode), let location = http.value(forHTTPHeaderField: "Location") {
                guard let next = URL(string: location, relativeTo: url)?.absoluteURL ?? URL(string: location) else {
                    throw Failure(message: "Bad redirect Location \(location)")
                }
                request = URLRequest(url: next)
                continue
            }
            // A meta refresh is rare: the expression runs only on a page that has one.
            if HTMLText.range(of: "http-equiv", in: html[...]) != nil,
                let refresh = HTMLText.firstMatch(html, #"http-equiv="refresh"[^>]*url=\s*'?([^"']+)'?""#),
                let next = URL(string: HTMLText.unescape(refresh), relativeTo: url)?.absoluteURL
            {
                request = URLRequest(url: next)
                continue
            }
            let page = Page(url: url, status: http.statusCode, html: html)
            if javaScriptEnabled, let form = Self.autoSubmitted(page) {
                request = try Self.request(submitting: form)
                continue
            }
            return .page(page)
        }
        throw Failure(message: "More than \(maximumRedirects) redirects")
    }

    /// The form a page's script submits as the page loads — a `<script>` or `<body onload="…">` calling
    /// `document.forms[N].submit()` (any other `submit()`: the first form) — if it has nothing to type into.
    static func autoSubmitted(_ page: Page) -> Form? {
        guard HTMLText.range(of: "submit()", in: page.html[...]) != nil else { return nil }
        let scripts = HTMLText.elements("script", in: page.html[...]).map(\.body)
            + HTMLText.tags("body", in: page.html[...]).compactMap { HTMLText.attribute("onload", in: $0).map { Substring($0) } }
        guard let script = scripts.first(where: { HTMLText.range(of: "submit()", in: $0) != nil }) else { return nil }
        let forms = page.forms
        let index = HTMLText.firstMatch(String(script), #"forms\[(\d{1,3})\]"#).flatMap { Int($0) } ?? 0
        guard forms.indices.contains(index), forms[index].isOnlyHidden else { return nil }
        return forms[index]
    }

    private func cookieHeader(for url: URL) -> String? {
        let jar = cookies.withLock { $0[url.host ?? ""] ?? [:] }
        return jar.isEmpty ? nil : jar.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
    }

    private func store(cookies response: HTTPURLResponse, for url: URL) {
        guard let header = response.value(forHTTPHeaderField: "Set-Cookie") else { return }
        for cookie in header.components(separatedBy: ", ") {
            guard let pair = cookie.split(separator: ";").first, let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals]).trimmingCharacters(in: .whitespaces)
            let value = String(pair[pair.index(after: equals)...])
            cookies.withLock { $0[url.host ?? "", default: [:]][name] = value }
        }
    }
}
