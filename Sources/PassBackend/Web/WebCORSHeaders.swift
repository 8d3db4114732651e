import Foundation
import MicroHTTP
import PassProtocol

/// Cross-origin answers of the web routes (``WebCORS``, spec §5.1): the JS SDK runs in the Programmer's page, on
/// another origin than the service, and sends the session cookie along, so the answer names the page's origin (not
/// `*`, which browsers refuse with credentials) and allows credentials — for pages on a Programmer's registered
/// domains (`domains` in the configuration, subdomains included) or on loopback (local development); other origins
/// get no cross-origin headers, so their pages cannot read the answers. Only the web routes answer this way: the
/// native SDK, REST and `/admin` routes stay same-origin only.
enum WebCORSHeaders {
    /// The preflight answer: `204` allowing the web variant's methods and headers for the asking origin.
    static func preflight(_ request: Request, _ service: BackendService) -> Response {
        var response = Response.empty()
        guard let origin = origin(request, service) else { return response }
        response.addHeader("Access-Control-Allow-Origin", origin)
        response.addHeader("Access-Control-Allow-Credentials", "true")
        response.addHeader("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
        response.addHeader("Access-Control-Allow-Headers", WebCORS.allowedHeaders.joined(separator: ", "))
        response.addHeader("Access-Control-Max-Age", "600")
        response.addHeader("Vary", "Origin")
        return response
    }

    /// Runs a web route and adds the cross-origin headers to whatever it answers, refusals included (a page can only
    /// read an error's details when they are there).
    static func answering(_ request: Request, _ service: BackendService, _ handler: () throws -> Response) -> Response {
        var response: Response
        do { response = try handler() } catch { response = PassBackend.render(error, request) }
        guard let origin = origin(request, service) else { return response }
        response.addHeader("Access-Control-Allow-Origin", origin)
        response.addHeader("Access-Control-Allow-Credentials", "true")
        response.addHeader("Access-Control-Expose-Headers", WebCORS.exposedHeaders.joined(separator: ", "))
        response.addHeader("Vary", "Origin")
        return response
    }

    /// The `Origin` a browser sent, when it is a well-formed `http(s)://host[:port]` on a Programmer's domain or
    /// loopback.
    static func origin(_ request: Request, _ service: BackendService) -> String? {
        guard let origin = request.header("Origin"), origin.count <= 256,
            let components = URLComponents(string: origin), let scheme = components.scheme,
            scheme == "http" || scheme == "https",
            let host = components.host?.lowercased(), !host.isEmpty, components.path.isEmpty, components.query == nil,
            components.user == nil, !origin.contains(where: { $0.isWhitespace || $0 == "," })
        else { return nil }
        guard allows(host: host, service) else { return nil }
        return origin
    }

    /// Loopback, or a Programmer's registered domain or one of its subdomains.
    static func allows(host: String, _ service: BackendService) -> Bool {
        if ["127.0.0.1", "localhost", "[::1]", "::1"].contains(host) { return true }
        return service.configuration.programmers.contains { programmer in
            programmer.domains.contains { domain in
                let domain = domain.lowercased()
                return host == domain || host.hasSuffix("." + domain)
            }
        }
    }
}
