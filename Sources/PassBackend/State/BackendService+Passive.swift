import Crypto
import Foundation
import PassProtocol

extension BackendService {
    /// The key the stand-in MVPD signs its assertions with (derived from the token signing key).
    var assertionKey: SymmetricKey {
        SymmetricKey(data: SHA256.hash(data: signingKey.rawRepresentation + Data("saml".utf8)))
    }

    /// Passive authentication (spec §8.5): for an MVPD with authentication per requestor and passive
    /// authentication enabled, a live session of another Programmer on the same device with the same MVPD
    /// yields a session for `requestorID` without a login page.
    ///
    /// - Returns: whether a session was opened.
    func passiveAuthentication(requestorID: String, mvpd: MVPD, deviceID: String) -> Bool {
        guard mvpd.authPerRequestor, mvpd.passiveAuthn else { return false }
        let now = now()
        return state.withLock { state in
            guard let source = state.sessions.values.first(where: {
                $0.deviceID == deviceID && $0.mvpdID == mvpd.id && $0.requestorID != requestorID && !$0.revoked
                    && $0.expires > now
            }) else { return false }
            state.store(AuthSession(
                guid: UUID().uuidString, requestorID: requestorID, mvpdID: mvpd.id, deviceID: deviceID,
                username: source.username, userID: source.userID, issued: now,
                expires: now.addingTimeInterval(TimeInterval(mvpd.authnTTL)), revoked: false, appID: nil))
            return true
        }
    }
}
