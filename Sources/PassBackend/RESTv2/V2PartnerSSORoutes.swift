import Foundation
import MicroHTTP
import PassProtocol

/// REST API v2 partner single sign-on (docs/rest-api-v2.md §3.13–3.14, §2.9): the app asks the partner framework
/// (Apple's video subscriber account) for the user's provider; with permission granted and a provider this service
/// integrates with Apple SSO, it gets a SAML request for the partner, and the partner's SAML response becomes an
/// `appleSSO` profile. Anything missing falls back to the basic flow (a session and its code), as the vendor documents.
enum V2PartnerSSORoutes {
    static let partners = ["Apple"]

    static func register(in router: inout Router, service: BackendService) {
        router.post("/api/v2/{serviceProvider}/sessions/sso/{partner}") { request in try authenticationRequest(request, service) }
        router.post("/api/v2/{serviceProvider}/profiles/sso/{partner}") { request in try profile(request, service) }
    }

    static func partner(_ call: V2Call) throws(EnhancedError) -> String {
        guard let partner = call.request.pathParameters["partner"], partners.contains(partner) else {
            throw EnhancedError(.invalidParameterPartner, details: "The partners are: \(partners.joined(separator: ", ")).")
        }
        return partner
    }

    static func authenticationRequest(_ request: Request, _ service: BackendService) throws(EnhancedError) -> Response {
        let call = try V2Call(request, service)
        let deviceID = try call.deviceID
        let deviceInfo = try call.deviceInfo
        let partner = try partner(call)
        let given = try V2SessionRoutes.parameters(call)
        let status = request.header("AP-Partner-Framework-Status").flatMap(V2.PartnerFrameworkStatus.decode)
        let providerID = status?.frameworkProviderInfo?.id
        let mvpd = providerID.flatMap(service.mvpd).flatMap { service.integrates(call.serviceProvider, $0.id) ? $0 : nil }
        let sessionID = UUID().uuidString.lowercased()
        // The basic flow instead: a session with its code, and why.
        func fallback(_ reason: String) -> Response {
            let pending = V2SessionRoutes.open(call, deviceID: deviceID, deviceInfo: deviceInfo, given: given, mvpd: mvpd?.id)
            // Without a provider from the partner, the user picks one in the browser (the authenticate page lists them).
            var answer = V2SessionRoutes.answer(pending, mvpdPickedInBrowser: true)
            answer.reasonType = answer.actionName == "authenticate" ? reason : "missing_parameters_fallback"
            return V2Call.json(answer)
        }
        if given.domainName == nil || given.redirectURL == nil { return fallback("missing_parameters_fallback") }
        guard let status, status.frameworkPermissionInfo?.accessStatus == "granted", let mvpd, Self.live(status, now: service.now()) else {
            return fallback("pfs_fallback")
        }
        guard mvpd.appleSSO else { return fallback("configuration_fallback") }
        if let direct = V2SessionRoutes.straightToDecision(call, deviceID: deviceID, mvpd: mvpd.id, sessionID: sessionID) {
            return V2Call.json(direct)
        }
        let saml = SAMLAuthnRequest(issueInstant: service.now(), destination: MVPDEndpoint.platformSignIn.path(mvpdID: mvpd.id))
        let answer = V2.Session(
            actionName: "partner_profile", actionType: "direct", reasonType: "none",
            url: "/api/v2/\(call.serviceProvider)/profiles/sso/\(partner)", code: nil, sessionId: sessionID, mvpd: mvpd.id,
            serviceProvider: call.serviceProvider, notBefore: nil, notAfter: nil)
        return V2Call.json(V2.PartnerSession(
            session: answer, authenticationRequest: V2.AuthenticationRequest(request: saml.base64, attributesNames: ["uid", "NameID", "uniqueId"])))
    }

    static func profile(_ request: Request, _ service: BackendService) throws(EnhancedError) -> Response {
        let call = try V2Call(request, service)
        let deviceID = try call.deviceID
        _ = try call.deviceInfo
        _ = try partner(call)
        let mvpd = try checkedStatus(call)
        if call.degradation(mvpd) == .authNAll {
            return V2Call.json(V2.Profiles(profiles: [mvpd.id: call.degradedProfile(deviceID: deviceID)]))
        }
        guard let assertion = RESTCall.nonEmpty(request.parameter("SAMLResponse")), assertion.utf8.count <= 65_536,
            let (loginID, username) = SAMLAssertion.verify(assertion, key: service.assertionKey), loginID == PlatformSSORoutes.platformLoginID,
            let subscriber = service.configuration.subscribers.first(where: { $0.mvpd == mvpd.id && $0.username == username })
        else {
            throw EnhancedError(.invalidParameterSAMLResponse,
                details: "SAMLResponse must be the partner's response for \(mvpd.id), Base64 and URL-encoded, as the platform sign-in gave it.")
        }
        guard mvpd.appleSSO else { throw EnhancedError(.invalidIntegration, details: "\(mvpd.id) offers no Apple single sign-on.") }
        let now = service.now()
        var session = AuthSession(
            guid: UUID().uuidString, requestorID: call.serviceProvider, mvpdID: mvpd.id, deviceID: deviceID, username: subscriber.username,
            userID: subscriber.userID, issued: now, expires: now.addingTimeInterval(TimeInterval(mvpd.authnTTL)), revoked: false,
            appID: nil, tokenSource: "apple")
        session.clientID = call.client.clientID
        let stored = session
        service.state.withLock { $0.store(stored) }
        return V2Call.json(V2.Profiles(profiles: [mvpd.id: V2ProfileRoutes.profile(stored, service)]), status: .created)
    }

    /// The MVPD an `AP-Partner-Framework-Status` header names, or the documented 400 saying what is wrong with it.
    static func checkedStatus(_ call: V2Call) throws(EnhancedError) -> MVPD {
        guard let header = call.request.header("AP-Partner-Framework-Status"), let status = V2.PartnerFrameworkStatus.decode(header),
            let access = status.frameworkPermissionInfo?.accessStatus
        else { throw EnhancedError(.invalidHeaderPFSPermissionAccessNotPresent) }
        if access == "notDetermined" { throw EnhancedError(.invalidHeaderPFSPermissionAccessNotDetermined) }
        guard access == "granted" else { throw EnhancedError(.invalidHeaderPFSPermissionAccessNotGranted, details: "accessStatus is \(access).") }
        guard let id = status.frameworkProviderInfo?.id, let mvpd = call.service.mvpd(id), call.service.integrates(call.serviceProvider, id) else {
            throw EnhancedError(.invalidHeaderPFSProviderIDNotDetermined)
        }
        if let named = RESTCall.nonEmpty(call.request.parameter("mvpd")), named != id { throw EnhancedError(.invalidHeaderPFSProviderIDMismatch) }
        guard live(status, now: call.service.now()) else { throw EnhancedError(.invalidHeaderPFSProviderInfoExpired) }
        return mvpd
    }

    /// Whether the provider's expiration date (milliseconds, a string) is still to come by the service's clock; a
    /// status without one is live (the vendor's cookbook sends it "if available"), one that is not a number is not.
    static func live(_ status: V2.PartnerFrameworkStatus, now: Date) -> Bool {
        guard let text = status.frameworkProviderInfo?.expirationDate, !text.isEmpty else { return true }
        guard text.utf8.count <= 16, let ms = Int64(text), ms > 0 else { return false }
        return Double(ms) / 1000 > now.timeIntervalSince1970
    }
}
