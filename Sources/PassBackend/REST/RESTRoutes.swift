import MicroHTTP
import PassProtocol

/// The Clientless REST API v1 (spec §5.4): registration codes, second-screen login, tokens, logout, and dynamic
/// client registration. Every call but `config` and the browser pages needs a bearer token or the HMAC header.
enum RESTRoutes {
    static func register(in router: inout Router, service: BackendService) {
        router.get("/api/v1/config/{requestor}") { request in try config(request, service) }
        RegcodeRoutes.register(in: &router, service: service)
        ActivationRoutes.register(in: &router, service: service)
        RESTAuthenticationRoutes.register(in: &router, service: service)
        RESTAuthorizationRoutes.register(in: &router, service: service)
        ClientRegistrationRoutes.register(in: &router, service: service)
        V2Routes.register(in: &router, service: service)
    }

    static func config(_ request: Request, _ service: BackendService) throws -> Response {
        let id = request.pathParameters["requestor"] ?? ""
        guard let programmer = service.programmer(id) else {
            throw RESTError(status: 404, message: "Not Found", details: "Requestor not found for given ID: \(id)")
        }
        let configuration = service.requestorConfiguration(programmer, clientType: (request.parameter("deviceType") ?? "ios").lowercased())
        switch RESTFormat(request).kind {
        case .json: return .json(data: configuration.json())
        case .xml: return .xml(configuration.xml())
        }
    }
}
