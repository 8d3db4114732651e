import Foundation
import MicroHTTP
import PassProtocol

/// REST API v2 logout (docs/rest-api-v2.md §3.12): ends the device's profile at one MVPD and says what the app must
/// still do: open the MVPD's logout in a user agent (`logout`), nothing (`complete`), or nothing was there (`invalid`).
enum V2LogoutRoutes {
    static func register(in router: inout Router, service: BackendService) {
        router.get("/api/v2/{serviceProvider}/logout/{mvpd}") { request in try logout(request, service) }
    }

    static func logout(_ request: Request, _ service: BackendService) throws(EnhancedError) -> Response {
        let call = try V2Call(request, service)
        let deviceID = try call.deviceID
        _ = try call.deviceInfo
        if let temp = V2TempPass.named(call) {
            return V2Call.json(V2.Logouts(logouts: [temp.id: V2.Logout(actionName: "complete", actionType: "none", mvpd: temp.id)]))
        }
        let mvpd = try call.mvpd()
        guard let redirect = RESTCall.nonEmpty(request.parameter("redirectUrl")), redirect.utf8.count <= 2048,
            URL(string: redirect)?.scheme != nil
        else { throw EnhancedError(.invalidParameterRedirectURL, details: "redirectUrl (an absolute, URL-encoded URL) is required.") }
        // Single logout: the identity's single sign-on profile at this MVPD goes too (and counts as the one to end).
        let sso = call.ssoSession().flatMap { $0.session.mvpdID == mvpd.id ? $0 : nil }
        if let sso {
            // "Delete regular and single sign-on profiles": the sign-in itself ends, on the device that made it too.
            service.state.withLock { state in
                _ = state.v2SSO.removeValue(forKey: sso.identity.key)
                _ = state.endSessions(deviceID: sso.session.deviceID, requestorID: sso.session.requestorID)
            }
        }
        let current = call.session(deviceID: deviceID) ?? sso?.session
        let live = current.map { $0.mvpdID == mvpd.id && !$0.revoked && $0.expires > service.now() } ?? false
        // Only this client's (or a legacy) sign-in at this MVPD ends.
        let ended = live && (sso != nil || service.state.withLock { state -> Bool in
            guard let session = state.session(call.serviceProvider, deviceID), session.mvpdID == mvpd.id else { return false }
            return state.endSessions(deviceID: deviceID, requestorID: call.serviceProvider) > 0
        })
        let action: V2.Logout
        if call.degradation(mvpd) != nil, !live {
            action = V2.Logout(actionName: "complete", actionType: "none", mvpd: mvpd.id)
        } else if !live || !ended {
            action = V2.Logout(actionName: "invalid", actionType: "none", mvpd: mvpd.id)
        } else if current?.tokenSource == "apple" {
            // Signed in through the partner (Apple): the user signs out in the device's settings.
            action = V2.Logout(actionName: "partner_logout", actionType: "partner_interactive", mvpd: mvpd.id)
        } else {
            let url = "/adobe-services/logout?mso_id=\(FormEncoding.escape(mvpd.id))&requestor_id=\(FormEncoding.escape(call.serviceProvider))"
                + "&redirect_url=\(FormEncoding.escape(redirect))"
            action = V2.Logout(actionName: "logout", actionType: "interactive", mvpd: mvpd.id, url: url)
        }
        return V2Call.json(V2.Logouts(logouts: [mvpd.id: action]))
    }
}
