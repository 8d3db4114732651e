import Foundation
import MicroHTTP

/// The console's door rules, checked before any route:
/// - `Host` must name this console (a page on another site cannot reach it through DNS rebinding);
/// - with an access token (always, when listening beyond loopback) every API call presents it, as
///   `Authorization: Bearer <token>` or, for `EventSource`, `access_token=<token>`;
/// - a request that changes something is a `POST`, comes from this console's own page (`Origin`, when sent, is
///   this console) and carries the page's CSRF token in `X-PassConsole-CSRF`. `/api/ingest` is for other
///   processes rather than pages: it takes the access token and NDJSON/JSON only, which a cross-site form cannot send.
struct AccessGuard: Sendable {
    static let csrfHeader = "X-PassConsole-CSRF"

    var accessToken: String?
    var csrfToken: String
    /// Host names (without port) this console answers to.
    var hosts: Set<String>

    init(accessToken: String?, csrfToken: String = AccessGuard.randomToken(), boundHost: String) {
        self.accessToken = accessToken
        self.csrfToken = csrfToken
        hosts = ["127.0.0.1", "localhost", "[::1]", boundHost]
    }

    /// Why `request` may not pass, as the answer to send; `nil` when it may.
    func check(_ request: Request) -> Response? {
        if let host = request.header("Host"), !hosts.contains(Self.hostName(host)) {
            return HTTPError(.forbidden, code: "bad_host",
                message: "This console does not answer to the host '\(host)'.",
                detail: "Open it as http://127.0.0.1:<port>/ or by the address it was started with.").response
        }
        let isAPI = request.path.hasPrefix("/api/")
        if isAPI, let accessToken, !presents(accessToken, request) {
            return HTTPError(.unauthorized, code: "token_required",
                message: "This console needs its access token: open the URL it printed at start, which carries ?token=….",
                detail: "Send Authorization: Bearer <token>; the token is also in the file named at start.",
                headers: ["WWW-Authenticate": "Bearer"]).response
        }
        guard Self.changes(request) else { return nil }
        if let origin = request.header("Origin"), origin != "null",
            let host = URLComponents(string: origin)?.host, !hosts.contains(host.contains(":") ? "[\(host)]" : host)
        {
            return HTTPError(.forbidden, code: "bad_origin", message: "Changes are only accepted from this console's own page.",
                detail: "Origin: \(origin)").response
        }
        if request.path == "/api/ingest" {
            let type = (request.header("Content-Type") ?? "").lowercased()
            guard type.hasPrefix("application/x-ndjson") || type.hasPrefix("application/json") else {
                return HTTPError(.unsupportedMediaType, code: "unsupported_media_type",
                    message: "Send events as application/x-ndjson (one event per line).").response
            }
            return nil
        }
        guard request.header(Self.csrfHeader) == csrfToken else {
            return HTTPError(.forbidden, code: "csrf_token_missing",
                message: "This change must come from the console page: the \(Self.csrfHeader) header is missing or stale.",
                detail: "Reload the page; scripts get the token from GET /api/overview.").response
        }
        return nil
    }

    /// Whether `request` asks to change something (a method other than GET/HEAD/OPTIONS).
    static func changes(_ request: Request) -> Bool {
        ["POST", "PUT", "DELETE", "PATCH"].contains(request.method)
    }

    private func presents(_ token: String, _ request: Request) -> Bool {
        if let header = request.header("Authorization"), header == "Bearer \(token)" { return true }
        return request.query("access_token") == token || request.query("token") == token
    }

    /// `127.0.0.1` from `127.0.0.1:8080`, `[::1]` from `[::1]:8080`.
    static func hostName(_ host: String) -> String {
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") { return String(host[...close]) }
        return String(host[..<(host.utf8.firstIndex(of: UInt8(ascii: ":")) ?? host.endIndex)])
    }

    /// 32 random bytes as hex.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
