import Foundation
import MicroHTTP
import PassProtocol

/// The native SDK protocol ("adobe-services", spec §5.2), served with and without `/1.0`.
///
/// Token problems answer `401` with `<error><details>why</details></error>` and an `Authzf-Error-Code` header
/// naming the rule that failed; MVPD denials answer `403` with the MVPD's message.
enum SDKRoutes {
    static let prefixes = ["/adobe-services", "/adobe-services/1.0"]

    static func register(in router: inout Router, service: BackendService) {
        for sp in prefixes {
            router.get("\(sp)/config/{requestor}") { request in try config(request, service) }
            // The web names (`session`, `authorize`, `shortAuthorize`) are ``WebRoutes``.
            router.post("\(sp)/sessionDevice") { request in try sessionDevice(request, service) }
            // The SDK posts `_method=GET` (spec §5.2.4), which the backend's method tunnelling turns into GET.
            router.get("\(sp)/sessionDevice") { request in try sessionDevice(request, service) }
            router.post("\(sp)/authorizeDevice") { request in try authorizeDevice(request, service) }
            router.post("\(sp)/deviceShortAuthorize") { request in try shortAuthorize(request, service) }
            router.post("\(sp)/preauthorize") { request in try preauthorize(request, service) }
            for name in ["usermetadata", "getMetadataDevice"] {
                router.post("\(sp)/\(name)") { request in try userMetadata(request, service) }
            }
            router.get("\(sp)/cookieDomains") { _ in
                .json(Dictionary(uniqueKeysWithValues: service.configuration.mvpds.map { ($0.id, ["127.0.0.1", "localhost"]) }))
            }
        }
    }

    // MARK: - Handlers

    static func config(_ request: Request, _ service: BackendService) throws -> Response {
        let id = request.pathParameters["requestor"] ?? ""
        guard let programmer = service.programmer(id) else {
            return .xml(SDKResponses.error(details: "Requestor not found for given ID: \(id)"), status: .badRequest)
        }
        let clientType = (request.parameter("client_type") ?? "ios").lowercased()
        let configuration = service.requestorConfiguration(programmer, clientType: clientType)
        if request.parameter("format") == "json" { return .json(data: configuration.json()) }
        return .xml(configuration.xml())
    }

    static func sessionDevice(_ request: Request, _ service: BackendService) throws -> Response {
        let (requestorID, deviceID) = try requireRequestorAndDevice(request, service)
        return authnAnswer(request, service.state.withLock({ $0.session(requestorID, deviceID) }), service)
    }

    /// The `sessionDevice`/`session` answer for the session a device holds (or none): the authN token with the
    /// subscriber's metadata, `<pendingLogout>` when the session was ended on the server, or the refusal.
    static func authnAnswer(_ request: Request, _ session: AuthSession?, _ service: BackendService) -> Response {
        guard let session else { return failure(.unknownSession, status: .notFound) }
        if session.revoked { return pendingLogout(session) }
        guard session.expires > service.now() else {
            return failure(.expired(TokenDate.format(session.expires)), status: .unauthorized)
        }
        let token = service.issueAuthN(session)
        service.recordVisitor(request, .signIn, session: session)
        return .xml(SDKResponses.authnToken(token.serialized, userMeta: userMeta(session, service)))
    }

    /// The subscriber's user metadata JSON for a session's answers, if the account still exists.
    static func userMeta(_ session: AuthSession, _ service: BackendService) -> String? {
        service.subscriber(of: session).map { service.userMetadata(for: $0, session: session).jsonText }
    }

    /// `200 <pendingLogout …/>`: the web variant's "wipe your cache and sign in again" (spec §5.2.4).
    static func pendingLogout(_ session: AuthSession) -> Response {
        .xml(SDKResponses.pendingLogout(requestorID: session.requestorID, mvpdID: session.mvpdID))
    }

    static func authorizeDevice(_ request: Request, _ service: BackendService) throws -> Response {
        let (requestorID, deviceID) = try requireRequestorAndDevice(request, service)
        let resource = try required(request, "resource_id")
        let serialized = try required(request, "authentication_token")
        switch service.authorize(authentication: serialized, requestorID: requestorID, deviceID: deviceID, resource: resource) {
        case .rejected(let rejection): return failure(rejection, status: .unauthorized)
        case .denied(let refusal): return denial(refusal, status: .forbidden)
        case .granted(let token, let session):
            service.recordVisitor(request, .authorization, session: session, resource: resource)
            return .xml(SDKResponses.authzToken(token.serialized, userMeta: nil))
        }
    }

    /// An MVPD's refusal: `<error><details>message</details></error>` with `Authzf-Error-Code: user_not_authorized`.
    static func denial(_ message: String, status: HTTPStatus) -> Response {
        var response = Response.xml(SDKResponses.error(details: message), status: status)
        response.addHeader("Authzf-Error-Code", "user_not_authorized")
        return response
    }

    static func shortAuthorize(_ request: Request, _ service: BackendService) throws -> Response {
        let (requestorID, deviceID) = try requireRequestorAndDevice(request, service)
        let serialized = try required(request, "authz_token")
        let authz: AuthZToken
        do {
            authz = try service.checkAuthZ(
                serialized, requestorID: requestorID, resource: request.parameter("resource_id"), deviceID: deviceID)
        } catch { return failure(error, status: .unauthorized) }
        let guid = request.parameter("session_guid") ?? ""
        // A Programmer signed in by single sign-on has no session of its own: the user's session is the one whose
        // GUID its authN token carries (RequestorBinding).
        let session = service.state.withLock { state in
            state.session(requestorID, deviceID) ?? (guid.isEmpty ? nil : state.sessions.values.first { $0.guid == guid })
        }
        if let session, session.revoked { return failure(.sessionRevoked, status: .unauthorized) }
        let token = service.issueMediaToken(
            sessionGUID: guid.isEmpty ? (session?.guid ?? "") : guid, requestorID: requestorID,
            resource: authz.resourceID, mvpdID: authz.mvpdID)
        return .text(token.serialized, contentType: "text/plain; charset=utf-8")
    }

    static func preauthorize(_ request: Request, _ service: BackendService) throws -> Response {
        let requestorID = try required(request, "requestor_id")
        // device_id is optional here (spec §5.2.7 lists none): without it only the device binding goes unchecked.
        let deviceID = request.parameter("device_id").flatMap { $0.isEmpty ? nil : $0 }
        let resources = request.parameterAll("resource_id").flatMap { $0.split(separator: ",").map(String.init) }
        guard !resources.isEmpty else { throw HTTPError(.badRequest, code: "missing_parameter", message: "resource_id is required.") }
        let serialized = try required(request, "authentication_token")
        let authn: (token: AuthNToken, session: AuthSession)
        do {
            authn = try service.checkAuthN(serialized, requestorID: requestorID, deviceID: deviceID)
        } catch { return failure(error, status: .unauthorized) }
        let decisions = resources.map { resource in
            let refusal = service.entitlementRefusal(session: authn.session, resource: resource)
            return PreauthorizationResponse.Decision(
                id: resource, authorized: refusal == nil,
                error: refusal.map { RESTError(status: 403, message: "User not authorized", details: $0) })
        }
        return .xml(SDKResponses.preauthorize(PreauthorizationResponse(resources: decisions)))
    }

    static func userMetadata(_ request: Request, _ service: BackendService) throws -> Response {
        let requestorID = request.parameter("requestor_id") ?? request.parameter("requestor") ?? ""
        let deviceID = request.parameter("device_id") ?? ""
        guard let session = service.state.withLock({ $0.session(requestorID, deviceID) }), !session.revoked,
            session.expires > service.now(), let subscriber = service.subscriber(of: session)
        else { return failure(.unknownSession, status: .notFound) }
        return .json(data: service.userMetadata(for: subscriber, session: session).json())
    }

    // MARK: - Helpers

    static func required(_ request: Request, _ name: String) throws -> String {
        guard let value = request.parameter(name), !value.isEmpty else {
            throw HTTPError(.badRequest, code: "missing_parameter", message: "The parameter \(name) is required.")
        }
        return value
    }

    static func requireRequestorAndDevice(_ request: Request, _ service: BackendService) throws -> (String, String) {
        (try requireRequestor(request, service), try required(request, "device_id"))
    }

    /// The `requestor_id` parameter, which must name a Programmer (`400` otherwise).
    static func requireRequestor(_ request: Request, _ service: BackendService) throws -> String {
        let requestorID = try required(request, "requestor_id")
        guard service.programmer(requestorID) != nil else {
            throw HTTPError(.badRequest, code: "unknown_requestor", message: "Requestor not found for given ID: \(requestorID)")
        }
        return requestorID
    }

    static func failure(_ rejection: TokenRejection, status: HTTPStatus) -> Response {
        var response = Response.xml(SDKResponses.error(details: rejection.reason), status: status)
        response.addHeader("Authzf-Error-Code", rejection.code)
        return response
    }
}
