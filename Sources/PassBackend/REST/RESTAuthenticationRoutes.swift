import Foundation
import MicroHTTP
import PassProtocol

/// REST v1 authentication state (spec §5.4.3 #6–9, #15, #16): is this device signed in, its authN token's
/// summary, the second-screen pairing, user metadata, and logout.
enum RESTAuthenticationRoutes {
    static func register(in router: inout Router, service: BackendService) {
        router.on("GET", "/api/v1/checkauthn", inline: { request in try checkAuthN(request, service) })
        router.on("GET", "/api/v1/checkauthn/{code}", inline: { request in try checkAuthNByCode(request, service) })
        router.on("GET", "/api/v1/tokens/authn", inline: { request in try authNToken(request, service) })
        router.on("GET", "/api/v1/authenticate/{code}", inline: { request in try authenticateCode(request, service) })
        router.on("GET", "/api/v1/tokens/usermetadata", inline: { request in try userMetadata(request, service) })
        for method in ["DELETE", "GET"] {
            router.on(method, "/api/v1/logout") { request in try logout(request, service) }
        }
    }

    static func checkAuthN(_ request: Request, _ service: BackendService) throws -> Response {
        let call = try RESTCall(request, service)
        _ = try call.authenticatedSession(deviceID: try call.deviceID, appID: call.appID, refusal: 403)
        return .empty(status: .ok)
    }

    static func checkAuthNByCode(_ request: Request, _ service: BackendService) throws -> Response {
        let call = try RESTCall(request, service)
        let record = try RegcodeRoutes.live(request.pathParameters["code"] ?? "", requestorID: call.requestorID, service)
        guard let session = service.session(for: record), !session.revoked, session.expires > service.now() else {
            throw RESTError(status: 403, message: "Forbidden", details: "Nobody has signed in with code \(record.code.code) yet.")
        }
        return .empty(status: .ok)
    }

    static func authNToken(_ request: Request, _ service: BackendService) throws -> Response {
        let call = try RESTCall(request, service)
        switch call.lookupSession(deviceID: try call.deviceID, appID: call.appID) {
        case .valid(let session): return call.render(summary(session))
        case .missing: throw RESTError(status: 404, message: "Not Found", details: "No authentication token for this device.")
        case .revoked: throw RESTError(status: 404, message: "Not Found", details: TokenRejection.sessionRevoked.reason)
        case .expired(let when): throw RESTError(status: 410, message: "Gone", details: "The authentication token expired at \(when).")
        }
    }

    /// KODI-ESPN's "authenticateRegCode": the token summary of the sign-in made with this code.
    static func authenticateCode(_ request: Request, _ service: BackendService) throws -> Response {
        let call = try RESTCall(request, service)
        let record = try RegcodeRoutes.live(request.pathParameters["code"] ?? "", requestorID: call.requestorID, service)
        guard let session = service.session(for: record), !session.revoked, session.expires > service.now() else {
            throw RESTError(status: 404, message: "Not Found", details: "Nobody has signed in with code \(record.code.code) yet.")
        }
        return call.render(summary(session))
    }

    static func userMetadata(_ request: Request, _ service: BackendService) throws -> Response {
        let call = try RESTCall(request, service)
        let deviceID = try call.deviceID
        if case .missing = call.lookupSession(deviceID: deviceID, appID: call.appID) {
            throw RESTError(status: 404, message: "Not Found", details: "No authentication token for this device.")
        }
        let session = try call.authenticatedSession(deviceID: deviceID, appID: call.appID)
        guard let subscriber = service.subscriber(of: session) else {
            throw RESTError(status: 404, message: "Not Found", details: "The subscriber's account no longer exists.")
        }
        return call.render(service.userMetadata(for: subscriber, session: session))
    }

    /// Ends the device's authN and authZ for this requestor on the server. Does not visit the MVPD.
    static func logout(_ request: Request, _ service: BackendService) throws -> Response {
        let call = try RESTCall(request, service)
        let deviceID = try call.deviceID
        let ended = service.state.withLock { $0.endSessions(deviceID: deviceID, requestorID: call.requestorID) }
        service.logger.info("REST logout of \(call.requestorID) on \(deviceID): \(ended) session(s) ended")
        return .empty()
    }

    static func summary(_ session: AuthSession) -> AuthNTokenResponse {
        AuthNTokenResponse(requestor: session.requestorID, mvpd: session.mvpdID, userId: session.userID, expiresAt: session.expires)
    }
}
