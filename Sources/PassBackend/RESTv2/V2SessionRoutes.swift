import Foundation
import MicroHTTP
import PassProtocol

/// REST API v2 authentication sessions (docs/rest-api-v2.md §3.2–3.5): create, resume with what was missing, read by
/// code (the second screen), and the user agent's entry to the MVPD's login. A session's code is also a registration
/// code, so `/activate` and the console know it.
enum V2SessionRoutes {
    static func register(in router: inout Router, service: BackendService) {
        router.post("/api/v2/{serviceProvider}/sessions") { request in try create(request, service) }
        router.post("/api/v2/{serviceProvider}/sessions/{code}") { request in try resume(request, service) }
        router.get("/api/v2/{serviceProvider}/sessions/{code}") { request in try read(request, service) }
        // The vendor's samples of this call swap the first two segments: both are answered.
        router.get("/api/v2/sessions/{serviceProvider}/{code}") { request in try read(request, service) }
        router.get("/api/v2/authenticate/{serviceProvider}/{code}") { request in try authenticate(request, service) }
    }

    static func create(_ request: Request, _ service: BackendService) throws(EnhancedError) -> Response {
        let call = try V2Call(request, service)
        let deviceID = try call.deviceID
        let deviceInfo = try call.deviceInfo
        let given = try parameters(call)
        let sessionID = UUID().uuidString.lowercased()
        if let direct = straightToDecision(call, deviceID: deviceID, mvpd: given.mvpd, sessionID: sessionID) { return V2Call.json(direct) }
        return V2Call.json(answer(open(call, deviceID: deviceID, deviceInfo: deviceInfo, given: given, mvpd: given.mvpd, sessionID: sessionID)))
    }

    /// A new authentication session and its code (also a registration code).
    static func open(
        _ call: V2Call, deviceID: String, deviceInfo: DeviceInfo?, given: Given, mvpd: String?, sessionID: String = UUID().uuidString.lowercased()
    ) -> V2AuthenticationSession {
        let request = call.request
        let service = call.service
        var info = RegistrationInfo(deviceId: deviceID)
        info.userAgent = request.header("User-Agent")
        info.originalUserAgent = request.header("User-Agent")
        info.deviceInfo = request.header("X-Device-Info")
        info.authorizationType = call.client.method.rawValue
        info.sourceApplicationInformation = SourceApplicationInformation(id: call.client.app.publicKey, name: call.client.app.name, version: nil)
        let ttl = service.configuration.tokens.regcodeTTL
        let code = service.createRegcode(requestorID: call.serviceProvider, mvpdID: mvpd, ttl: ttl, info: info)
        let now = service.now()
        let session = V2AuthenticationSession(
            code: code.code, sessionID: sessionID, serviceProvider: call.serviceProvider, clientID: call.client.clientID,
            deviceID: deviceID, deviceInfo: deviceInfo, mvpd: mvpd, domainName: given.domainName, redirectURL: given.redirectURL,
            created: now, expires: now.addingTimeInterval(TimeInterval(ttl)))
        var stored = session
        stored.sso = call.ssoIdentity
        let kept = stored
        service.state.withLock { $0.v2Sessions[code.code] = kept }
        return kept
    }

    static func resume(_ request: Request, _ service: BackendService) throws(EnhancedError) -> Response {
        let call = try V2Call(request, service)
        var session = try live(request.pathParameters["code"] ?? "", call)
        let given = try parameters(call)
        session.mvpd = given.mvpd ?? session.mvpd
        session.domainName = given.domainName ?? session.domainName
        session.redirectURL = given.redirectURL ?? session.redirectURL
        let stored = session
        service.state.withLock { state in
            state.v2Sessions[stored.code] = stored
            if let mvpd = stored.mvpd { state.regcodes[stored.code]?.code.mvpd = mvpd }
        }
        if let direct = straightToDecision(call, deviceID: session.deviceID, mvpd: session.mvpd, sessionID: session.sessionID) {
            return V2Call.json(direct)
        }
        return V2Call.json(answer(session, resuming: true))
    }

    static func read(_ request: Request, _ service: BackendService) throws(EnhancedError) -> Response {
        let call = try V2Call(request, service)
        let session = try live(request.pathParameters["code"] ?? "", call)
        var existing = ["serviceProvider": session.serviceProvider]
        existing["mvpd"] = session.mvpd
        existing["domainName"] = session.domainName
        existing["redirectUrl"] = session.redirectURL
        let missing = session.missingParameters
        return V2Call.json(V2.SessionInfo(
            existingParameters: existing, missingParameters: missing.isEmpty ? nil : missing,
            device: session.deviceInfo ?? DeviceInfo(model: nil, osName: nil), notBefore: EpochMilliseconds.string(session.created),
            notAfter: EpochMilliseconds.string(session.expires)))
    }

    /// Opened in a browser: on to the MVPD's login page; when it is done, to the session's redirect URL. Errors are
    /// pages (the user reads them), not JSON.
    static func authenticate(_ request: Request, _ service: BackendService) throws -> Response {
        let code = (request.pathParameters["code"] ?? "").uppercased()
        let serviceProvider = request.pathParameters["serviceProvider"] ?? ""
        guard let session = service.state.withLock({ $0.v2Sessions[code] }), session.serviceProvider == serviceProvider else {
            return page("There is no sign-in with the code \(code) for \(serviceProvider).", status: .badRequest)
        }
        guard session.expires > service.now() else {
            return page("The code \(code) has expired. Ask your TV for a new code.", status: .badRequest)
        }
        guard let mvpdID = session.mvpd ?? RESTCall.nonEmpty(request.parameter("mvpd")) else { return picker(session, service) }
        guard service.mvpd(mvpdID) != nil, service.integrates(serviceProvider, mvpdID) else {
            return page("\(mvpdID) is not a TV provider of \(serviceProvider).", status: .badRequest)
        }
        let redirectURL = session.redirectURL ?? "/activate/done?code=\(code)"
        return SPSignInRoutes.start(service.beginLogin(
            requestorID: serviceProvider, mvpdID: mvpdID, deviceID: session.deviceID, redirectURL: redirectURL, regcode: code), service)
    }

    // MARK: - Parts

    struct Given {
        var mvpd: String?
        var domainName: String?
        var redirectURL: String?
    }

    /// The form's parameters, each checked when present.
    static func parameters(_ call: V2Call) throws(EnhancedError) -> Given {
        let request = call.request
        var given = Given()
        if let mvpd = RESTCall.nonEmpty(request.parameter("mvpd")), V2TempPass.named(call) != nil {
            given.mvpd = mvpd
        } else if let mvpd = RESTCall.nonEmpty(request.parameter("mvpd")) {
            guard call.service.mvpd(mvpd) != nil else { throw EnhancedError(.invalidParameterMVPD) }
            guard call.service.integrates(call.serviceProvider, mvpd) else { throw EnhancedError(.invalidIntegration) }
            given.mvpd = mvpd
        }
        if let domain = RESTCall.nonEmpty(request.parameter("domainName")) {
            given.domainName = domain
        }
        if let redirect = RESTCall.nonEmpty(request.parameter("redirectUrl")) {
            guard redirect.utf8.count <= 2048, let url = URL(string: redirect), url.scheme != nil else {
                throw EnhancedError(.invalidParameterRedirectURL, details: "redirectUrl must be an absolute URL.")
            }
            given.redirectURL = redirect
        }
        return given
    }

    /// A live session of this service provider by its code.
    static func live(_ code: String, _ call: V2Call) throws(EnhancedError) -> V2AuthenticationSession {
        guard code.utf8.count <= 64, let session = call.service.state.withLock({ $0.v2Sessions[code.uppercased()] }),
            session.serviceProvider == call.serviceProvider
        else { throw EnhancedError(.invalidParameterCode, details: "No authentication session has the code \(code).") }
        guard session.expires > call.service.now() else {
            throw EnhancedError(.invalidAuthenticationSession, details: "The authentication session \(session.code) has expired.")
        }
        return session
    }

    /// The answer that skips the sign-in: the MVPD's authentication bypassed (degraded access, AuthNAll), or the device
    /// signed in already with the MVPD asked for. No code: the app goes straight to the decision.
    static func straightToDecision(_ call: V2Call, deviceID: String, mvpd: String?, sessionID: String) -> V2.Session? {
        guard let mvpd else { return nil }
        let reason: String
        if call.service.configuration.tempPass.contains(where: { $0.id == mvpd && $0.requestors.contains(call.serviceProvider) }) {
            reason = "temporary"
        } else if let configured = call.service.mvpd(mvpd), call.degradation(configured) == .authNAll {
            reason = "degraded"
        } else if call.service.mvpd(mvpd) != nil, let session = call.session(deviceID: deviceID), session.mvpdID == mvpd, !session.revoked,
            session.expires > call.service.now()
        {
            reason = "authenticated"
        } else if let sso = call.ssoSession(), sso.session.mvpdID == mvpd {
            reason = "authenticatedSSO"
        } else {
            return nil
        }
        return V2.Session(
            actionName: "authorize", actionType: "direct", reasonType: reason,
            url: "/api/v2/\(call.serviceProvider)/decisions/authorize/\(mvpd)", code: nil, sessionId: sessionID, mvpd: mvpd,
            serviceProvider: call.serviceProvider, notBefore: nil, notAfter: nil)
    }

    /// What the app does next with a session: provide what is missing (`resume` after a create, `retry` after a
    /// resume), or open its URL in a user agent.
    /// `mvpdPickedInBrowser`: a missing MVPD does not hold the flow up (the authenticate page lists the providers).
    static func answer(_ session: V2AuthenticationSession, resuming: Bool = false, mvpdPickedInBrowser: Bool = false) -> V2.Session {
        let missing = session.missingParameters
        let resume = !missing.filter { !(mvpdPickedInBrowser && $0 == "mvpd") }.isEmpty
        return V2.Session(
            actionName: resume ? (resuming ? "retry" : "resume") : "authenticate", actionType: resume ? "direct" : "interactive",
            reasonType: "none",
            url: resume ? "/api/v2/\(session.serviceProvider)/sessions/\(session.code)" : "/api/v2/authenticate/\(session.serviceProvider)/\(session.code)",
            missingParameters: missing.isEmpty ? nil : missing, code: session.code, sessionId: session.sessionID, mvpd: session.mvpd,
            serviceProvider: session.serviceProvider, notBefore: EpochMilliseconds.string(session.created),
            notAfter: EpochMilliseconds.string(session.expires))
    }

    /// The TV providers of the session's service provider, each a link back here with its `mvpd`.
    static func picker(_ session: V2AuthenticationSession, _ service: BackendService) -> Response {
        let mvpds = (service.programmer(session.serviceProvider)?.mvpds ?? []).compactMap(service.mvpd)
        let links = mvpds.map { mvpd in
            let href = "/api/v2/authenticate/\(FormEncoding.escape(session.serviceProvider))/\(session.code)?mvpd=\(FormEncoding.escape(mvpd.id))"
            return "<li><a class=\"provider\" href=\"\(HTMLPage.escape(href))\">\(HTMLPage.escape(mvpd.displayName))</a></li>"
        }.joined()
        return .html(HTMLPage.page(title: "Choose your TV provider", heading: "Choose your TV provider",
            body: "<p>Choose your TV provider to sign in:</p><ul class=\"providers\">\(links)</ul>"))
    }

    static func page(_ message: String, status: HTTPStatus) -> Response {
        .html(HTMLPage.page(title: "Sign-in not possible", heading: "Sign-in not possible", body: HTMLPage.alert(message)), status: status)
    }
}
