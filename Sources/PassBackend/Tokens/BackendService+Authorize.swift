import Foundation
import PassProtocol

/// What an authorization request gets, for every route that authorizes (native `authorizeDevice`, web `authorize`):
/// the routes differ only in how they write it down.
enum AuthorizationDecision {
    /// An authZ token for the resource, and the session the authN token stands for.
    case granted(SignedToken<AuthZToken>, session: AuthSession)
    /// The MVPD refuses the resource: its message.
    case denied(String)
    /// The authN token is not acceptable.
    case rejected(TokenRejection)
}

extension BackendService {
    /// Checks the authN token (``checkAuthN(_:requestorID:deviceID:)``), asks the MVPD's rules
    /// (``entitlementRefusal(session:resource:)``) and issues the authZ token bound to `deviceID`.
    ///
    /// - Parameter deviceID: The device the client names; `nil` (a web client that names none) means the device of
    ///   the session the authN token stands for.
    func authorize(authentication serialized: String, requestorID: String, deviceID: String?, resource: String)
        -> AuthorizationDecision
    {
        let authn: (token: AuthNToken, session: AuthSession)
        do {
            authn = try checkAuthN(serialized, requestorID: requestorID, deviceID: deviceID)
        } catch { return .rejected(error) }
        if let refusal = entitlementRefusal(session: authn.session, resource: resource) { return .denied(refusal) }
        guard let mvpd = mvpd(authn.session.mvpdID) else {
            return .rejected(.mvpdNotIntegrated(mvpd: authn.session.mvpdID, requestor: requestorID))
        }
        let device = deviceID ?? authn.session.deviceID
        return .granted(
            issueAuthZ(requestorID: requestorID, resource: resource, mvpd: mvpd, deviceID: device),
            session: authn.session)
    }
}
