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

/// A web view's walk through the SDK login: login URL → MVPD form → credentials → redirects → custom scheme.
struct WebLogin {
    let client: TestHTTPClient

    /// Follows redirects from `path` until a non-HTTP URL (the app's scheme) or a non-redirect answer.
    /// Returns the last answer and, when reached, the custom-scheme URL.
    func follow(_ path: String, limit: Int = 10) async throws -> (HTTPResult, String?) {
        var next = path
        for _ in 0..<limit {
            let result = try await client.get(next)
            guard (300..<400).contains(result.status), let location = result.header("Location") else {
                return (result, nil)
            }
            if location.hasPrefix("/") || location.hasPrefix("http") { next = location } else { return (result, location) }
        }
        Issue.record("too many redirects from \(path)")
        return (try await client.get(next), nil)
    }

    /// Posts the login form found in `page` with the given credentials (or the Cancel button), then follows redirects.
    func submit(_ page: HTTPResult, username: String, password: String, cancel: Bool = false) async throws
        -> (HTTPResult, String?)
    {
        let html = page.text
        guard let action = Self.capture(html, #"<form method="post" action="([^"]+)""#),
            let login = Self.capture(html, #"name="login" value="([^"]+)""#)
        else {
            Issue.record("no login form in page: \(html.prefix(300))")
            return (page, nil)
        }
        var form = [("login", login)]
        form += cancel ? [("action", "cancel")] : [("username", username), ("password", password), ("action", "signin")]
        let answer = try await client.post(action, form: form)
        guard (300..<400).contains(answer.status), let location = answer.header("Location") else { return (answer, nil) }
        if !(location.hasPrefix("/") || location.hasPrefix("http")) { return (answer, location) }
        return try await follow(location)
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

    static func capture(_ text: String, _ pattern: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let range = Range(match.range(at: 1), in: text)
        else { return nil }
        return String(text[range]).replacingOccurrences(of: "&amp;", with: "&")
    }
}
