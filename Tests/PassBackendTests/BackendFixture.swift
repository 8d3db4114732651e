import Foundation
import MicroHTTP
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// The demo configuration, a backend over it with a clock tests can move, served on loopback.
struct BackendFixture {
    static let configPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config/demo.json").path

    static func configuration() throws -> BackendConfiguration {
        try BackendConfiguration.load(path: configPath)
    }

    /// Runs `body` against a fresh backend (demo data) on 127.0.0.1.
    static func with(
        configure: (inout BackendConfiguration) -> Void = { _ in },
        _ body: (BackendService, TestHTTPClient) async throws -> Void
    ) async throws {
        var configuration = try configuration()
        configure(&configuration)
        let service = BackendService(configuration: configuration, logger: TestServer.logger)
        try await TestServer.with(PassBackend(service: service)) { _, client async throws in
            try await body(service, client)
        }
    }
}

/// A web view's walk through the SDK login: login URL → MVPD form → credentials → redirects → custom scheme. It walks
/// every shape the demo MVPDs use (spec §5.2.3): `302`s, meta refresh, pages whose script auto-posts a form of hidden
/// fields (the SAML HTTP-POST binding), the *Resume* page, and each MVPD's own field names.
struct WebLogin {
    let client: TestHTTPClient

    /// Follows redirects, meta refreshes and auto-posting pages from `path` until a non-HTTP URL (the app's scheme)
    /// or a page to stop at. Returns the last answer and, when reached, the custom-scheme URL.
    func follow(_ path: String, limit: Int = 12) async throws -> (HTTPResult, String?) {
        try await walk(client.get(path), limit: limit)
    }

    /// Continues from an answer already received.
    func walk(_ first: HTTPResult, limit: Int = 12, pressResume: Bool = false) async throws -> (HTTPResult, String?) {
        var result = first
        for _ in 0..<limit {
            var next: String?
            if (300..<400).contains(result.status), let location = result.header("Location") {
                next = location
            } else if let refresh = Self.capture(result.text, #"http-equiv="refresh" content="0; url=([^"]+)""#) {
                next = refresh
            } else if result.text.contains("document.forms[0].submit()") || (pressResume && result.text.contains(">Resume<")),
                let post = Self.hiddenForm(result.text)
            {
                result = try await client.post(post.action, form: post.fields)
                continue
            }
            guard let next else { return (result, nil) }
            if !(next.hasPrefix("/") || next.hasPrefix("http")) { return (result, next) }
            result = try await client.get(next)
        }
        Issue.record("too many steps")
        return (result, nil)
    }

    /// Posts the login form found in `page` with the given credentials in the MVPD's own field names (or the Cancel
    /// button), then walks on (pressing *Resume*).
    func submit(_ page: HTTPResult, username: String, password: String, cancel: Bool = false) async throws
        -> (HTTPResult, String?)
    {
        let html = page.text
        guard let action = Self.capture(html, #"<form method="post" action="([^"]+)""#),
            let login = Self.capture(html, #"name="login" value="([^"]+)""#),
            let userField = Self.capture(html, #"<input id="[^"]*" name="([^"]+)" autocomplete="username""#),
            let passwordField = Self.capture(html, #"name="([^"]+)" type="password""#)
        else {
            Issue.record("no login form in page: \(html.prefix(300))")
            return (page, nil)
        }
        var form = [("login", login)]
        form += cancel ? [("action", "cancel")] : [(userField, username), (passwordField, password), ("action", "signin")]
        return try await walk(try await client.post(action, form: form), pressResume: true)
    }

    /// The whole SDK web login for one device; returns the custom-scheme URL the flow ended at.
    func login(requestor: String, mvpd: String, device: String, username: String, password: String,
               redirect: String = PassConstants.ADOBEPASS_REDIRECT_URL) async throws -> String? {
        let start = "/adobe-services/authenticate/saml?requestor_id=\(requestor)&mso_id=\(mvpd)&device_id=\(device)"
            + "&redirect_url=\(TestHTTPClient.escape(redirect))"
        let (page, _) = try await follow(start)
        let (_, end) = try await submit(page, username: username, password: password)
        return end
    }

    /// The first form of a page and its hidden fields.
    static func hiddenForm(_ html: String) -> (action: String, fields: [(String, String)])? {
        guard let action = capture(html, #"<form method="post" action="([^"]+)""#) else { return nil }
        let fields = matches(html, #"<input type="hidden" name="([^"]+)" value="([^"]*)""#).map { ($0[0], $0[1]) }
        return (action, fields)
    }

    static func matches(_ text: String, _ pattern: String) -> [[String]] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (1..<match.numberOfRanges).map { index in
                Range(match.range(at: index), in: text).map { unescape(String(text[$0])) } ?? ""
            }
        }
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    static func capture(_ text: String, _ pattern: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let range = Range(match.range(at: 1), in: text)
        else { return nil }
        return String(text[range]).replacingOccurrences(of: "&amp;", with: "&")
    }
}
