import Foundation
import MicroHTTP

/// Who may use the backend's `/admin` controls (faults, clock, sessions, revocations).
///
/// The controls change what every client of the backend sees, so a web page the developer happens to visit must
/// not reach them:
/// - `Host` must name this backend (loopback, or the machine's addresses when bound beyond it): no DNS rebinding;
/// - an `Origin`, when sent, must be the backend itself (same host and port as `Host`): a page on another port or
///   site is refused, whatever `fetch` mode it uses;
/// - every change is a `POST` or `PUT` with `Content-Type: application/json`, which a page cannot send cross-origin
///   without a CORS preflight (that this backend never grants); `GET` only reads;
/// - with a token (always when bound beyond loopback) every admin call sends `Authorization: Bearer <token>`.
public struct AdminAccess: Sendable {
    /// Required on every `/admin` call when set (empty means none).
    public var token: String?
    /// Host names (no port, lower-case) the backend answers to.
    public var hosts: Set<String>

    /// Admin access for a backend bound to `boundHost`; `token` is required when set.
    public init(token: String? = nil, boundHost: String = "127.0.0.1") {
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        hosts = LocalAddresses.hostNames(boundTo: boundHost)
    }

    /// Why `request` may not use the admin API, as the answer; nil when it may or is not an admin call.
    func check(_ request: Request) -> Response? {
        // The server normalised the path already (a `%25` is now a `%`): decoding it again would refuse a path holding
        // a literal `%` (found by schemathesis on /api/v2). Judge the path as given and, when it still decodes (an
        // in-process caller's raw path), as decoded too: either naming /admin is an admin call.
        let decoded = (try? PathNormalizer.normalize(request.path).get()) ?? request.path
        guard PathNormalizer.guardedHead(of: request.path) == "admin" || PathNormalizer.guardedHead(of: decoded) == "admin" else {
            return nil
        }
        if let token, !SecretComparison.matches(SecretComparison.bearerToken(request.header("Authorization")), token) {
            return HTTPError(.unauthorized, code: "admin_token_required",
                message: "The backend's admin API needs its token: Authorization: Bearer <token>.",
                detail: "The token was written to the file named when the backend started.",
                headers: ["WWW-Authenticate": "Bearer"]).response
        }
        let host = request.header("Host")
        if let host, !hosts.contains(LocalAddresses.hostName(fromHostHeader: host)) {
            return HTTPError(.forbidden, code: "bad_host", message: "The admin API does not answer to the host '\(host)'.").response
        }
        if let origin = request.header("Origin") {
            guard let components = URLComponents(string: origin), let originHost = components.host, let host,
                Self.authority(originHost, components.port) == Self.authority(host)
            else {
                return HTTPError(.forbidden, code: "bad_origin", message: "The admin API refuses calls from web pages.",
                    detail: "Origin: \(origin)").response
            }
        }
        if request.method != "GET" && request.method != "HEAD" {
            let type = (request.header("Content-Type") ?? "").lowercased()
            guard type.hasPrefix("application/json") else {
                return HTTPError(.unsupportedMediaType, code: "unsupported_media_type",
                    message: "Admin changes take Content-Type: application/json only.",
                    detail: "Content-Type: \(type.isEmpty ? "(none)" : type)").response
            }
        }
        return nil
    }

    /// `host:port` lower-case, the port defaulting to 80.
    static func authority(_ host: String, _ port: Int?) -> String {
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(name.lowercased()):\(port ?? 80)"
    }

    /// The authority of a `Host` header value.
    static func authority(_ hostHeader: String) -> String {
        guard let host = HostHeader(hostHeader) else { return hostHeader.lowercased() }
        return authority(host.name, host.port)
    }
}
