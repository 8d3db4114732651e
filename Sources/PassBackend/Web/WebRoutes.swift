import Foundation
import MicroHTTP
import PassProtocol

/// The web (JS-SDK / browser) variant of the protocol (spec §5.2.7, "Web/JS-SDK variants"), as browser-based clients
/// speak it (yt-dlp's Adobe Pass extractor is the public example):
///
/// 1. `POST /indiv/devices {"fingerprint": …}` → `{"deviceId": …}` and a `pass_sfp` header;
/// 2. a registration code for that device (`POST /reggie/v1/{requestor}/regcode`, REST v1 rules);
/// 3. `GET /adobe-services/authenticate/saml?…&reg_code=…` → the MVPD's pages (``LoginRoutes``); the sign-in lands
///    on the code's device;
/// 4. `POST /adobe-services/session` → `<authnToken>`; 5. `authorize` → `<authzToken>`; 6. `shortAuthorize` → the
///    media token.
///
/// The device comes from `reg_code`, `device_id`, the `pass_sfp`/`ap_21` headers or the `pass_sfp` cookie
/// (``WebDevice``); `authorize` and `shortAuthorize` without any of them are for the device of the session the token or
/// `session_guid` names, so a client with cached tokens needs nothing else (yt-dlp's second run sends no device). The token rules are the native ones (``BackendService/authorize(authentication:requestorID:deviceID:resource:)``,
/// ``BackendService/checkAuthZ(_:requestorID:resource:deviceID:)``); what differs is the answers: a session ended on
/// the server (revoked, or removed by a logout) answers `200 <pendingLogout …/>` on all three calls, and an MVPD's
/// refusal answers `200` with `<error><details>…</details></error>` (web clients read the `<error>` document from a
/// successful answer: yt-dlp raises on any HTTP error status before it looks for `<error`).
enum WebRoutes {
    static func register(in router: inout Router, service: BackendService) {
        let paths =
            [WebEndpoint.deviceRegistration]
            + SDKRoutes.prefixes.flatMap { sp in WebEndpoint.allCases.map { sp + $0.rawValue } }
        for path in paths {
            router.on("OPTIONS", path) { request in WebCORSHeaders.preflight(request, service) }
        }
        router.post(WebEndpoint.deviceRegistration) { request in
            WebCORSHeaders.answering(request, service) { try registerDevice(request, service) }
        }
        for sp in SDKRoutes.prefixes {
            // `_method=GET` in the form: the backend's method tunnelling turns the POST into a GET.
            for method in ["POST", "GET"] {
                router.on(method, sp + WebEndpoint.session.rawValue) { request in
                    WebCORSHeaders.answering(request, service) { try session(request, service) }
                }
            }
            router.post(sp + WebEndpoint.authorize.rawValue) { request in
                WebCORSHeaders.answering(request, service) { try authorize(request, service) }
            }
            router.post(sp + WebEndpoint.shortAuthorize.rawValue) { request in
                WebCORSHeaders.answering(request, service) { try shortAuthorize(request, service) }
            }
        }
    }

    // MARK: - Handlers

    /// `POST /indiv/devices`: the same fingerprint always gets the same device ID on this backend.
    static func registerDevice(_ request: Request, _ service: BackendService) throws -> Response {
        struct Body: Decodable { var fingerprint: String? }
        let fingerprint = (try request.decodeJSON(Body.self).fingerprint ?? "").trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard !fingerprint.isEmpty else {
            throw HTTPError(
                .badRequest, code: "missing_parameter",
                message: "The body must be a JSON object with a non-empty \"fingerprint\" string.")
        }
        guard fingerprint.count <= DeviceRegistrationRequest.maximumLength else {
            throw HTTPError(
                .badRequest, code: "invalid_parameter",
                message:
                    "The fingerprint is \(fingerprint.count) characters long; at most \(DeviceRegistrationRequest.maximumLength) are accepted."
            )
        }
        let device = ServerFingerprint(
            deviceID: ServerFingerprint.deviceID(forFingerprint: fingerprint, key: service.serverFingerprintKey),
            appID: nil)
        var response = Response.json(DeviceRegistrationResponse(deviceId: device.deviceID))
        response.addHeader(WebHeader.serverFingerprint.rawValue, device.serialized(key: service.serverFingerprintKey))
        return response
    }

    /// `session`: the authN token of the device's (or the registration code's) session; sets the `pass_sfp` cookie.
    static func session(_ request: Request, _ service: BackendService) throws -> Response {
        let requestorID = try SDKRoutes.requireRequestor(request, service)
        let device = try WebDevice.require(request, requestorID: requestorID, service)
        let session = service.state.withLock { $0.session(requestorID, device.deviceID, appID: device.appID) }
        var response = SDKRoutes.authnAnswer(request, session, service)
        response.setCookie(WebHeader.serverFingerprint.rawValue, device.cookie(service))
        return response
    }

    /// `authorize`: an authZ token for the resource, bound to the device.
    static func authorize(_ request: Request, _ service: BackendService) throws -> Response {
        let requestorID = try SDKRoutes.requireRequestor(request, service)
        let resource = try SDKRoutes.required(request, "resource_id")
        let serialized = try SDKRoutes.required(request, "authentication_token")
        let device = try WebDevice.resolve(request, requestorID: requestorID, service)
        // mso_id is optional (the client copies it from the token); when sent it must be the token's MVPD.
        if let msoID = WebDevice.nonEmpty(request.parameter("mso_id")),
            let tokenMVPD = try? SignedToken<AuthNToken>.parse(serialized).body.mvpdID, msoID != tokenMVPD
        {
            throw HTTPError(
                .badRequest, code: "mso_mismatch",
                message: "mso_id \(msoID) is not the MVPD of the authentication token (\(tokenMVPD)).")
        }
        switch service.authorize(
            authentication: serialized, requestorID: requestorID, deviceID: device?.deviceID, resource: resource)
        {
        case .rejected(let rejection) where rejection == .sessionRevoked || rejection == .unknownSession:
            // Revoked, or ended by a logout: the client's cached tokens are stale; a token never issued stays a 401.
            guard let guid = try? SignedToken<AuthNToken>.parse(serialized).body.guid,
                let found = signIn(guid: guid, service)
            else { return SDKRoutes.failure(rejection, status: .unauthorized) }
            return SDKRoutes.pendingLogout(found.session)
        case .rejected(let rejection):
            return SDKRoutes.failure(rejection, status: .unauthorized)
        case .denied(let refusal):
            return SDKRoutes.denial(refusal, status: .ok)
        case .granted(let token, let session):
            let userMeta = request.parameter("userMeta") == "1" ? SDKRoutes.userMeta(session, service) : nil
            return .xml(SDKResponses.authzToken(token.serialized, userMeta: userMeta))
        }
    }

    /// `shortAuthorize`: the media token for the authZ token's resource, naming the session `session_guid` names.
    static func shortAuthorize(_ request: Request, _ service: BackendService) throws -> Response {
        let requestorID = try SDKRoutes.requireRequestor(request, service)
        let serialized = try SDKRoutes.required(request, "authz_token")
        let guid = try SDKRoutes.required(request, "session_guid")
        switch request.parameter("hashed_guid") {
        case nil, "", "false": break
        case "true":
            throw HTTPError(
                .badRequest, code: "unsupported_parameter",
                message:
                    "hashed_guid=true is not supported: send the authN token's simpleTokenAuthenticationGuid with hashed_guid=false."
            )
        case let other?:
            throw HTTPError(
                .badRequest, code: "invalid_parameter", message: "hashed_guid must be true or false, not \"\(other)\".")
        }
        let named = try WebDevice.resolve(request, requestorID: requestorID, service)
        guard let found = signIn(guid: guid, service) else {
            return SDKRoutes.failure(.unknownSession, status: .unauthorized)
        }
        let session = found.session
        // A client that names no device (yt-dlp's cached path sends neither cookies nor ap_21) is the session's device.
        let deviceID = named?.deviceID ?? session.deviceID
        guard session.deviceID == deviceID else { return SDKRoutes.failure(.deviceMismatch, status: .unauthorized) }
        guard RequestorBinding.accepts(tokenIssuedTo: session.requestorID, presentedBy: requestorID,
            authnPerRequestor: service.mvpd(session.mvpdID)?.authPerRequestor ?? true)
        else {
            return SDKRoutes.failure(
                .wrongRequestor(token: session.requestorID, presented: requestorID), status: .unauthorized)
        }
        let authz: AuthZToken
        do {
            authz = try service.checkAuthZ(
                serialized, requestorID: requestorID, resource: WebDevice.nonEmpty(request.parameter("resource_id")),
                deviceID: deviceID)
        } catch { return SDKRoutes.failure(error, status: .unauthorized) }
        guard session.mvpdID == authz.mvpdID else {
            throw HTTPError(
                .badRequest, code: "session_mismatch",
                message: "session_guid names a sign-in with "
                    + "\(session.mvpdID), but the authorization token was issued by \(authz.mvpdID).")
        }
        if found.ended || session.revoked { return SDKRoutes.pendingLogout(session) }
        let token = service.issueMediaToken(
            sessionGUID: guid, requestorID: requestorID, resource: authz.resourceID, mvpdID: authz.mvpdID)
        return .text(token.serialized, contentType: "text/plain; charset=utf-8")
    }

    /// The sign-in a session GUID names: live (revoked or not), or `ended` on the server (a logout removed it; the
    /// backend remembers its last 1,000 sign-ins). `nil` when this backend never issued it.
    static func signIn(guid: String, _ service: BackendService) -> (session: AuthSession, ended: Bool)? {
        service.state.withLock { state in
            if let live = state.sessions.values.first(where: { $0.guid == guid }) { return (live, false) }
            return state.signIns.last(where: { $0.guid == guid }).map { ($0, true) }
        }
    }
}
