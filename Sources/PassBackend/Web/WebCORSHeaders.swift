import Foundation
import MicroHTTP
import PassProtocol

/// Cross-origin answers of the web routes (``WebCORS``, spec §5.1): the JS SDK runs in the Programmer's page, on
/// another origin than the service, and sends the session cookie along, so the answer names the page's origin (not
/// `*`, which browsers refuse with credentials) and allows credentials. Only the web routes answer this way: the
/// native SDK, REST and `/admin` routes stay same-origin only.
enum WebCORSHeaders {
    /// The preflight answer: `204` allowing the web variant's methods and headers for the asking origin.
    static func preflight(_ request: Request) -> Response {
        var response = Response.empty()
        guard let origin = origin(request) else { return response }
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
    static func answering(_ request: Request, _ handler: () throws -> Response) -> Response {
        var response: Response
        do { response = try handler() } catch { response = PassBackend.render(error, request) }
        guard let origin = origin(request) else { return response }
        response.addHeader("Access-Control-Allow-Origin", origin)
        response.addHeader("Access-Control-Allow-Credentials", "true")
        response.addHeader("Access-Control-Expose-Headers", WebCORS.exposedHeaders.joined(separator: ", "))
        response.addHeader("Vary", "Origin")
        return response
    }

    /// The `Origin` a browser sent, when it is a plausible one (`scheme://host[:port]`, no spaces or line breaks).
    static func origin(_ request: Request) -> String? {
        guard let origin = request.header("Origin"), origin.count <= 256, origin != "null",
            origin.hasPrefix("http://") || origin.hasPrefix("https://"),
            !origin.contains(where: { $0.isWhitespace || $0 == "," })
        else { return nil }
        return origin
    }
}
