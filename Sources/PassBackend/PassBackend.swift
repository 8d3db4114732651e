import Foundation
import WireDates
import Logging
import MicroHTTP
import PassEvents
import PassRecording
import PassProtocol

/// The local stand-in for the entitlement service and the MVPDs' login pages, as one HTTP responder.
///
/// Serve it with MicroHTTP, or call ``respond(to:)`` in-process:
/// ```swift
/// let backend = PassBackend(service: BackendService(configuration: try .load(path: "Config/demo.json")))
/// let server = HTTPServer(configuration: .init(port: 8081), responder: backend, logger: logger)
/// try server.start()
/// ```
/// Paths: the native SDK protocol under `/adobe-services` and `/adobe-services/1.0` (with its web variant,
/// ``WebRoutes``, and the browser device registration `/indiv/devices`), the SAML consumer under
/// `/sp/saml`, MVPD pages under `/mvpd/{id}`, the Clientless REST API under `/api/v1` and `/reggie/v1`,
/// dynamic client registration under `/o/client`, the media token verifier at `/verify`, and fault and clock
/// controls under `/admin`.
public struct PassBackend: HTTPResponder {
    /// The model and state every route shares.
    public let service: BackendService
    /// Who may use the `/admin` controls (``AdminAccess``).
    public let admin: AdminAccess
    let router: Router
    /// Records every exchange served as an event (``ExchangeRecorder``), when set.
    public let recorder: ExchangeRecorder?

    /// Creates the backend over a service; `admin` says who may use its `/admin` controls; `recording` receives an
    /// event for every exchange served (the console's history, or a reporter to one).
    public init(service: BackendService, admin: AdminAccess = AdminAccess(), recording sink: (any EventSink)? = nil) {
        self.service = service
        self.admin = admin
        self.recorder = sink.map { ExchangeRecorder(.backend, sink: $0, context: BackendExchangeContext(service: service), now: service.now) }
        var router = Router()
        router.errorRenderer = { error, request in PassBackend.render(error, request) }
        SDKRoutes.register(in: &router, service: service)
        WebRoutes.register(in: &router, service: service)
        LoginRoutes.register(in: &router, service: service)
        RESTRoutes.register(in: &router, service: service)
        AdminRoutes.register(in: &router, service: service)
        self.router = router
    }

    /// Every route the backend answers (for tests that walk them all).
    public var registeredRoutes: [Router.RouteDescription] { router.registeredRoutes }

    /// Answers on the network thread when nothing can delay the answer (no fault rules, no throttle) and the route
    /// is an inline one (the REST token routes): no task hop, which roughly doubles their throughput.
    /// The admin guard on the head alone, before the server reads the body.
    public func judgeHead(_ head: Request) -> Response? { admin.check(head).map(dated) }

    /// `/admin` bodies are small (``AdminInputBounds/maxBodySize``): a bigger one is refused with 413 before it is read.
    public func bodyLimit(for head: Request) -> Int? {
        head.path.hasPathPrefix("/admin/") ? AdminInputBounds.maxBodySize : nil
    }

    /// (The server judged the head already; ``respond(to:)`` checks again for in-process callers.)
    public func respondInline(to request: Request) -> Response? {
        let faults = service.faults
        guard faults.rules.isEmpty, faults.throttle == nil else { return nil }
        let started = ContinuousClock.now
        let request = RESTFormat.normalize(request)
        guard let response = router.respondWithInlineRoute(to: request).map(dated) else { return nil }
        recorder?.record(request, response, started: started)
        return response
    }

    /// The answer with the backend's own clock in its `Date` header (the clock-offset fault included), so a client
    /// can compare its clock with the server's; libmicrohttpd adds no second one.
    func dated(_ response: Response) -> Response {
        var response = response
        if response.headers.contains(where: { $0.name.equalsIgnoringASCIICase("Date") }) {
            response.headers.removeAll { $0.name.equalsIgnoringASCIICase("Date") }
        }
        response.headers.append((name: "Date", value: HTTPDate.format(service.now())))
        return response
    }

    /// Answers any request: `/admin` access first, then the route; every answer carries the backend clock's `Date`.
    /// Each exchange is recorded once answered (when recording).
    public func respond(to request: Request) async -> Response {
        let started = ContinuousClock.now
        if let refusal = admin.check(request) { return dated(refusal) }
        let normalized = RESTFormat.normalize(request)
        let response = await answer(normalized)
        recorder?.record(normalized, response, started: started)
        return response
    }

    /// The answer to a request admitted and normalised.
    private func answer(_ request: Request) async -> Response {
        if let refusal = service.throttle(request) { return dated(refusal) }
        let fault = service.takeFault(for: request)
        if let latency = fault?.latencyMs, latency > 0 { try? await Task.sleep(for: .milliseconds(latency)) }
        if let status = fault?.status {
            return dated(PassBackend.injectedFailure(status: status, request: request))
        }
        var response = await router.respond(to: request)
        if fault?.malformed == true, case .data(let data) = response.body {
            response.body = .data(data.prefix(data.count / 2))
        }
        return dated(response)
    }

    /// The server's own refusals (a malformed path, a body over the cap) in the enhanced error format on REST API v2.
    public func shapeRefusal(_ refusal: HTTPError, target: String) -> Response {
        guard target.hasPrefix("/api/v2/") else { return refusal.response }
        return Self.enhanced(refusal).response
    }

    /// An ``HTTPError`` in the enhanced error format (REST API v2 clients read no other).
    static func enhanced(_ error: HTTPError) -> EnhancedError {
        EnhancedError(status: error.status.code, code: error.code, message: error.message, details: error.detail)
    }

    /// Renders thrown errors: REST errors in the format asked for, token rejections and ``HTTPError`` as JSON; on REST
    /// API v2 every error in the enhanced error format.
    static func render(_ error: any Error, _ request: Request) -> Response {
        if request.path.hasPathPrefix("/api/v2/"), !(error is EnhancedError) {
            if let error = error as? HTTPError {
                var response = enhanced(error).response
                for (name, value) in error.headers { response.addHeader(name, value) }
                return response
            }
            let fallback = Router.defaultErrorResponse(error, request)
            return EnhancedError(status: fallback.status.code, code: "internal_server_error",
                message: EnhancedError.Code.internalServerError.message).response
        }
        switch error {
        case let error as RESTError:
            return RESTFormat(request).render(error)
        case let error as HTTPError:
            return error.response
        case let error as EnhancedError:
            return error.response
        default:
            return Router.defaultErrorResponse(error, request)
        }
    }

    static func injectedFailure(status: Int, request: Request) -> Response {
        let error = RESTError(status: status, message: "Injected fault", details: "A fault rule answered \(status) for \(request.path).")
        if request.path.hasPathPrefix("/api/v2/") {
            // REST API v2 clients read the enhanced error format; the fault's status is kept.
            var enhanced = EnhancedError(status >= 500 ? .internalServerError : .networkConnectionTimeout, details: error.details)
            enhanced.status = status
            return enhanced.response
        }
        if request.path.hasPathPrefix("/adobe-services") {
            return .xml(SDKResponses.error(details: error.details ?? error.message), status: HTTPStatus(status))
        }
        return RESTFormat(request).render(error)
    }
}
