import Foundation
import MicroHTTP
import PassProtocol

/// The answer format a REST v1 client asked for: `format=json|xml`, a `.json`/`.xml` path suffix (turned into
/// `format` by ``PassBackend``), or the `Accept` header. XML when nothing says otherwise, as the real service.
struct RESTFormat {
    enum Kind { case json, xml }
    let kind: Kind

    init(_ request: Request) {
        if let format = request.parameter("format")?.lowercased() {
            kind = format == "json" ? .json : .xml
        } else if let accept = request.header("Accept")?.lowercased(), accept.contains("json") {
            kind = .json
        } else {
            kind = .xml
        }
    }

    /// A payload in the chosen format.
    func render<Payload: RESTPayload>(_ payload: Payload, status: HTTPStatus = .ok) -> Response {
        switch kind {
        case .json: .json(data: payload.json(), status: status)
        case .xml: .xml(payload.xml(), status: status)
        }
    }

    /// An error body `{status, message, details}` in the chosen format, with its status code.
    func render(_ error: RESTError) -> Response {
        render(error, status: HTTPStatus(error.status))
    }

    /// Strips a `.json`/`.xml` suffix from the last path segment into a `format` query item, and honours a form
    /// POST's `_method=GET|DELETE` (spec §9.2: some clients tunnel every call through POST).
    static func normalize(_ request: Request) -> Request {
        guard request.path.hasPathPrefix("/api/") || request.path.hasPathPrefix("/reggie/")
            || request.path.hasPathPrefix("/adobe-services/")
        else { return request }
        var request = request
        if request.method == "POST", let tunnelled = request.formItems.first(where: { $0.name == "_method" })?.value.uppercased(),
            ["GET", "DELETE", "POST"].contains(tunnelled)
        {
            request.method = tunnelled
        }
        for suffix in [".json", ".xml"] where request.path.hasSuffix(suffix) {
            request.path.removeLast(suffix.count)
            request.queryItems.append(("format", String(suffix.dropFirst())))
            break
        }
        return request
    }
}
