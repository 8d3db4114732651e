import AccessEnabler
import Foundation
import MicroHTTP
import PassHistory

/// The console's door rules, checked on every request's head before its body is read (``Console/judgeHead(_:)``)
/// and again before any route:
/// - the path is judged as normalised (``PathNormalizer``: `//api`, `/./api`, `/%61pi` are `/api`), and anything
///   whose first segment reads `api` ignoring case and trailing dots (`/API./x`) is API: default-deny; so is
///   `/metrics` (Prometheus scrapes send the token as a bearer token); `/healthz` is public and reveals nothing;
/// - `Host` must name this console (a page on another site cannot reach it through DNS rebinding): loopback, and
///   when listening beyond loopback the machine's own addresses and the `--public-url` host;
/// - with an access token (always, when listening beyond loopback) every API call and every change presents it, as
///   `Authorization: Bearer <token>` or `access_token=`/`token=` (for `EventSource` and the printed URL), compared in
///   constant time; an empty token is no token;
/// - once the history holds named operators (``OperatorDirectory``, the console's copy of them: the door never
///   reads the database) every API call and change presents a personal token instead, even on loopback; a revoked
///   one is `401 token_revoked`, and the operator's role must allow the
///   request's ``ConsoleAction`` (``OperatorRole/may(_:)``) or it is `403 role_forbidden`. The console's access
///   token then only ingests (reporting apps);
/// - a request that changes something is a `POST`, comes from this console's own page (`Origin`, when sent, is
///   this console) and carries the page's CSRF token in `X-PassConsole-CSRF`. `/api/ingest` is for other
///   processes rather than pages: it takes the access token and NDJSON/JSON only, which a cross-site form cannot send.
struct AccessGuard: Sendable {
    static let csrfHeader = "X-PassConsole-CSRF"

    var accessToken: String?
    var csrfToken: String
    /// Host names (without port, lower-case, IPv6 in brackets) this console answers to.
    var hosts: Set<String>
    /// The named operators; `nil` for a console that has none by construction (a support bundle).
    var operators: OperatorDirectory?

    init(
        accessToken: String?, csrfToken: String = AccessGuard.randomToken(), boundHost: String, publicURL: String? = nil,
        operators: OperatorDirectory? = nil
    ) {
        self.accessToken = accessToken.flatMap { $0.isEmpty ? nil : $0 }
        self.operators = operators
        self.csrfToken = csrfToken
        hosts = LocalAddresses.hostNames(boundTo: boundHost)
        if let publicURL, let host = URLComponents(string: publicURL)?.host, !host.isEmpty {
            hosts.insert(Self.bracketed(host.lowercased()))
        }
    }

    /// Why `request` may not pass, as the answer to send; `nil` when it may.
    func check(_ request: Request) -> Response? {
        // The server normalised the path already (a `%25` is now a `%`): one that does not decode again is judged as
        // given (decoding twice refused paths with a literal `%`, as the backend's admin guard did on /api/v2).
        let path = (try? PathNormalizer.normalize(request.path).get()) ?? request.path
        if let host = request.header("Host"), !hosts.contains(LocalAddresses.hostName(fromHostHeader: host)) {
            return HTTPError(.forbidden, code: "bad_host",
                message: "This console does not answer to the host '\(host)'.",
                detail: "Open it as http://127.0.0.1:<port>/, by the address it was started with, or by its --public-url.").response
        }
        // `/metrics` shows activity (routes, counts): behind the token like the API. `/healthz` is public (see HealthCheck).
        let isAPI = ["api", "metrics"].contains(PathNormalizer.guardedHead(of: path))
        let isPublicPage = !isAPI && (request.method == "GET" || request.method == "HEAD")
        if !isPublicPage, case .refuse(let refusal) = identify(request, path: path) { return refusal }
        guard Self.changes(request) else { return nil }
        if let origin = request.header("Origin"), origin != "null",
            let host = URLComponents(string: origin)?.host, !hosts.contains(Self.bracketed(host.lowercased()))
        {
            return HTTPError(.forbidden, code: "bad_origin", message: "Changes are only accepted from this console's own page.",
                detail: "Origin: \(origin)").response
        }
        if path == "/api/ingest" {
            // Only POST is ingest; any other method is the router's 405 whatever the body type (no route, no change)
            guard request.method == "POST" else { return nil }
            let type = (request.header("Content-Type") ?? "").lowercased()
            guard type.hasPrefix("application/x-ndjson") || type.hasPrefix("application/json") else {
                return HTTPError(.unsupportedMediaType, code: "unsupported_media_type",
                    message: "Send events as application/x-ndjson (one event per line).").response
            }
            return nil
        }
        guard SecretComparison.matches(request.header(Self.csrfHeader), csrfToken) else {
            return HTTPError(.forbidden, code: "csrf_token_missing",
                message: "This change must come from the console page: the \(Self.csrfHeader) header is missing or stale.",
                detail: "Reload the page; scripts get the token from GET /api/overview.").response
        }
        return nil
    }

    /// Whether `request` asks to change something (a method other than GET/HEAD/OPTIONS).
    static func changes(_ request: Request) -> Bool {
        !["GET", "HEAD", "OPTIONS"].contains(request.method)
    }

    /// What the door decided about who is asking.
    enum Door {
        case pass(ConsoleIdentity)
        case refuse(Response)
    }

    /// Who `request` is (its normalised `path`), and whether they may do what it asks.
    func identify(_ request: Request, path: String) -> Door {
        let presented = [SecretComparison.bearerToken(request.header("Authorization")), request.query("access_token"), request.query("token")]
            .compactMap { $0 }.first { !$0.isEmpty }
        // Hashed once: the copy is keyed by it and the match is compared with it again in constant time.
        let presentedHash = presented.map(OperatorToken.hash)
        guard let lookup = operators.map({ $0.lookUp(tokenHash: presentedHash) }) ?? OperatorLookup(hasOperators: false, match: nil) else {
            return .refuse(HTTPError(.serviceUnavailable, code: "operators_unreadable",
                message: "The console cannot read its operators from the history, so it lets no one in.",
                detail: "See the history's state in the console's log; try again once it can be read.").response)
        }
        guard lookup.hasOperators else {
            if let accessToken, !presents(accessToken, request) {
                return .refuse(HTTPError(.unauthorized, code: "token_required",
                    message: "This console needs its access token: open the URL it printed at start, which carries ?token=….",
                    detail: "Send Authorization: Bearer <token>; the token is also in the file named at start.",
                    headers: ["WWW-Authenticate": "Bearer"]).response)
            }
            return .pass(.singleUser)
        }
        if let match = lookup.match, SecretComparison.matches(presentedHash, match.tokenHash) {
            if let revokedAt = match.revokedAt {
                return .refuse(HTTPError(.unauthorized, code: "token_revoked",
                    message: "The token of \(match.name) was revoked (\(EntitlementEvent.Wire.format(revokedAt))): ask for a new one.",
                    detail: "An operator is added with `passconsole operator add NAME --role viewer|operator`.",
                    headers: ["WWW-Authenticate": "Bearer"]).response)
            }
            let action = ConsoleAction.of(request, path: path)
            guard match.role.may(action) else {
                return .refuse(HTTPError(.forbidden, code: "role_forbidden",
                    message: "\(match.name) is a \(match.role.rawValue): a \(match.role.rawValue) may not \(action.words) "
                        + "(a \(match.role.rawValue) \(match.role.summary)).",
                    detail: "Ask someone with the operator role, or for that role.").response)
            }
            return .pass(ConsoleIdentity(operatorName: match.name, role: match.role, signInRequired: true))
        }
        if path == "/api/ingest", let accessToken, presents(accessToken, request) {
            return .pass(ConsoleIdentity(operatorName: nil, role: nil, signInRequired: true))
        }
        return .refuse(HTTPError(.unauthorized, code: "sign_in_required",
            message: "Sign in with your personal operator token: this console has named operators.",
            detail: "Send Authorization: Bearer <token>. Tokens come from `passconsole operator add NAME --role viewer|operator`.",
            headers: ["WWW-Authenticate": "Bearer"]).response)
    }

    private func presents(_ token: String, _ request: Request) -> Bool {
        if SecretComparison.matches(SecretComparison.bearerToken(request.header("Authorization")), token) { return true }
        return SecretComparison.matches(request.query("access_token"), token) || SecretComparison.matches(request.query("token"), token)
    }

    /// `[::1]` for `::1`; other hosts as they are.
    static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// `127.0.0.1` from `127.0.0.1:8080`, `[::1]` from `[::1]:8080`.
    static func hostName(_ host: String) -> String { LocalAddresses.hostName(fromHostHeader: host) }

    /// 32 random bytes as hex.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
