import Foundation
import MicroHTTP
import PassProtocol

/// REST v1 authorization (spec §5.4.3 #10–14): decisions kept on the server, their summaries, short media tokens
/// (Base64 in `serializedToken`) and preauthorization of a list of resources.
enum RESTAuthorizationRoutes {
    static func register(in router: inout Router, service: BackendService) {
        router.on("GET", "/api/v1/authorize", inline: { request in try authorize(request, service) })
        router.on("GET", "/api/v1/tokens/authz", inline: { request in try authZToken(request, service) })
        for path in ["/api/v1/tokens/media", "/api/v1/mediatoken"] {
            router.on("GET", path, inline: { request in try mediaToken(request, service) })
        }
        router.on("GET", "/api/v1/preauthorize", inline: { request in try preauthorize(request, service) })
        router.on("GET", "/api/v1/preauthorize/{code}", inline: { request in try preauthorizeByCode(request, service) })
    }

    static func authorize(_ request: Request, _ service: BackendService) throws -> Response {
        let call = try RESTCall(request, service)
        let deviceID = try call.deviceID
        let resource = try call.required("resource")
        let session = try call.authenticatedSession(deviceID: deviceID, appID: call.appID)
        let record = try decide(call, session: session, resource: resource)
        return call.render(summary(record))
    }

    static func authZToken(_ request: Request, _ service: BackendService) throws -> Response {
        let call = try RESTCall(request, service)
        let deviceID = try call.deviceID
        let resource = BackendService.resourceID(try call.required("resource"))
        _ = try call.authenticatedSession(deviceID: deviceID, appID: call.appID)
        let key = BackendState.authorizationKey(call.requestorID, deviceID, resource)
        guard let record = service.state.withLock({ $0.authorizations[key] }) else {
            throw RESTError(status: 404, message: "Not Found", details: "No authorization for \(resource) on this device: call authorize first.")
        }
        guard record.expires > service.now() else {
            throw RESTError(status: 410, message: "Gone", details: "The authorization for \(resource) expired at \(TokenDate.format(record.expires)).")
        }
        return call.render(summary(record))
    }

    /// A fresh short media token every call (never cached), after a live authorization or a new decision.
    static func mediaToken(_ request: Request, _ service: BackendService) throws -> Response {
        let call = try RESTCall(request, service)
        let deviceID = try call.deviceID
        let resource = try call.required("resource")
        let session = try call.authenticatedSession(deviceID: deviceID, appID: call.appID)
        let key = BackendState.authorizationKey(call.requestorID, deviceID, BackendService.resourceID(resource))
        let now = service.now()
        let existing = service.state.withLock { $0.authorizations[key] }.flatMap { $0.expires > now ? $0 : nil }
        let record = try existing ?? decide(call, session: session, resource: resource)
        let token = service.issueMediaToken(
            sessionGUID: session.guid, requestorID: call.requestorID, resource: record.resource, mvpdID: record.mvpdID)
        var answer = MediaTokenResponse(token: token)
        answer.userId = session.userID
        return call.render(answer)
    }

    static func preauthorize(_ request: Request, _ service: BackendService) throws -> Response {
        let call = try RESTCall(request, service)
        let session = try call.authenticatedSession(deviceID: try call.deviceID, appID: call.appID)
        return preauthorization(call, session: session, resources: try call.resources)
    }

    /// The second-screen app's preauthorization: the device is the one that created the code.
    static func preauthorizeByCode(_ request: Request, _ service: BackendService) throws -> Response {
        let call = try RESTCall(request, service)
        let record = try RegcodeRoutes.live(request.pathParameters["code"] ?? "", requestorID: call.requestorID, service)
        let info = record.code.info
        let session = try call.authenticatedSession(deviceID: info.deviceId, appID: RESTCall.nonEmpty(info.appId))
        return preauthorization(call, session: session, resources: try call.resources)
    }

    // MARK: - Decisions

    /// Asks the MVPD (here: the subscriber's entitlements and the denial knobs) and stores the authorization.
    static func decide(_ call: RESTCall, session: AuthSession, resource: String) throws(RESTError) -> AuthZRecord {
        let service = call.service
        if let refusal = service.entitlementRefusal(session: session, resource: resource) {
            throw RESTError(status: 403, message: "User not authorized", details: refusal)
        }
        guard let mvpd = service.mvpd(session.mvpdID) else {
            throw RESTError(status: 403, message: "User not authorized", details: "The MVPD \(session.mvpdID) is no longer configured.")
        }
        let resourceID = BackendService.resourceID(resource)
        let record = AuthZRecord(
            requestorID: call.requestorID, deviceID: session.deviceID, resource: resourceID, mvpdID: mvpd.id,
            expires: service.now().addingTimeInterval(TimeInterval(mvpd.authzTTL)))
        service.state.withLock {
            $0.authorizations[BackendState.authorizationKey(call.requestorID, session.deviceID, resourceID)] = record
        }
        return record
    }

    static func preauthorization(_ call: RESTCall, session: AuthSession, resources: [String]) -> Response {
        let decisions = resources.map { resource in
            let refusal = call.service.entitlementRefusal(session: session, resource: resource)
            return PreauthorizationResponse.Decision(
                id: resource, authorized: refusal == nil,
                error: refusal.map { RESTError(status: 403, message: "User not authorized", details: $0) })
        }
        var response = call.render(PreauthorizationResponse(resources: decisions))
        response.addHeader("Adobe-Request-Id", UUID().uuidString.lowercased())
        response.addHeader("Adobe-Response-Confidence", "full")
        return response
    }

    static func summary(_ record: AuthZRecord) -> AuthorizationResponse {
        AuthorizationResponse(mvpd: record.mvpdID, resource: record.resource, requestor: record.requestorID, expiresAt: record.expires)
    }
}
