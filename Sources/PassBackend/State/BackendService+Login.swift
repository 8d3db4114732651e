import Foundation
import PassProtocol

extension BackendService {
    /// Starts a login at an MVPD; the SP's answer to the browser depends on the MVPD's ``MVPDLoginPage/flow``
    /// (`SPSignIn.start`).
    ///
    /// Used by the SDK's login URL (`/adobe-services/authenticate/saml`) and the second-screen
    /// `/api/v1/authenticate`; when the login completes, ``completeLogin(_:subscriber:)`` opens a session for
    /// `deviceID` (or for the registration code's device) and the browser is sent to `redirectURL`.
    func beginLogin(
        requestorID: String, mvpdID: String, deviceID: String, redirectURL: String, passive: Bool = false,
        regcode: String? = nil
    ) -> LoginSession {
        let login = LoginSession(
            id: UUID().uuidString, requestorID: requestorID, mvpdID: mvpdID, deviceID: deviceID,
            redirectURL: redirectURL, passive: passive, regcode: regcode, created: now())
        state.withLock { $0.logins[login.id] = login }
        return login
    }

    /// The login in progress with this ID.
    func login(_ id: String) -> LoginSession? { state.withLock { $0.logins[id] } }

    /// The login with this ID, in progress or ended within the hour: what the recorder reads (never a route: an ended
    /// login cannot be used again).
    func loginForRecording(_ id: String) -> LoginSession? { state.withLock { $0.logins[id] ?? $0.endedLogins[id] } }

    /// Opens a session for a finished login; the authN token is handed out by `sessionDevice` or the REST
    /// token endpoints. A login started with a registration code opens it for the code's device.
    @discardableResult
    func completeLogin(_ login: LoginSession, subscriber: Subscriber) -> AuthSession {
        let mvpd = mvpd(login.mvpdID)
        let now = now()
        return state.withLock { state in
            state.keepEnded(login.id)
            var deviceID = login.deviceID
            var appID: String?
            if let code = login.regcode, let record = state.regcodes[code] {
                deviceID = record.code.info.deviceId
                appID = record.code.info.appId.flatMap { $0.isEmpty ? nil : $0 }
            }
            var session = AuthSession(
                guid: UUID().uuidString, requestorID: login.requestorID, mvpdID: login.mvpdID, deviceID: deviceID,
                username: subscriber.username, userID: subscriber.userID, issued: now,
                expires: now.addingTimeInterval(TimeInterval(mvpd?.authnTTL ?? 86400)), revoked: false, appID: appID)
            session.clientID = login.regcode.flatMap { state.v2Sessions[$0]?.clientID }
            if let sso = login.regcode.flatMap({ state.v2Sessions[$0]?.sso }) { state.v2SSO[sso.key] = session }
            state.store(session)
            return session
        }
    }

    /// Cancels a login; the browser goes back to the app with an error.
    func cancelLogin(_ login: LoginSession) {
        state.withLock { $0.keepEnded(login.id) }
    }
}
