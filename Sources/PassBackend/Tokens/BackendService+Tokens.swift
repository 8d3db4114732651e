import Foundation
import PassProtocol

extension BackendService {
    // MARK: - Issuing

    /// Signs an authentication token for a session, bound to its device ID.
    func issueAuthN(_ session: AuthSession, authorizedResources: [String] = []) -> SignedToken<AuthNToken> {
        SignedToken.sign(
            AuthNToken(
                guid: session.guid, requestorID: session.requestorID, expires: session.expires, mvpdID: session.mvpdID,
                deviceFingerprint: DeviceFingerprint.make(deviceID: session.deviceID),
                samlNameID: session.userID, samlSessionIndex: String(session.guid.prefix(8)),
                authorizedResources: authorizedResources),
            with: signingKey)
    }

    /// Signs an authorization token for one resource, bound to the device ID.
    func issueAuthZ(requestorID: String, resource: String, mvpd: MVPD, deviceID: String) -> SignedToken<AuthZToken> {
        SignedToken.sign(
            AuthZToken(
                requestorID: requestorID, resourceID: resource,
                expires: now().addingTimeInterval(TimeInterval(mvpd.authzTTL)), mvpdID: mvpd.id,
                deviceFingerprint: DeviceFingerprint.make(deviceID: deviceID)),
            with: signingKey)
    }

    /// Signs a short media token (not device-bound, one-time, ``TokenSettings/mediaTokenTTL`` long).
    func issueMediaToken(sessionGUID: String, requestorID: String, resource: String, mvpdID: String)
        -> SignedToken<MediaToken>
    {
        SignedToken.sign(
            MediaToken(
                sessionGUID: sessionGUID, requestorID: requestorID, resourceID: resource,
                ttlMilliseconds: Int64(configuration.tokens.mediaTokenTTL) * 1000, issueTime: now(), mvpdID: mvpdID),
            with: signingKey)
    }

    // MARK: - Checking

    /// Checks an authentication token a client presents, in the order a support person would: readable,
    /// signed by us, for this Programmer (``RequestorBinding``: any Programmer for an MVPD without authentication per
    /// requestor), issuer allowed, alive, this device, session still open.
    ///
    /// - Parameter deviceID: The device ID presented, or `nil` when the client sent none (preauthorization
    ///   may omit it): then only the device check is skipped.
    /// - Returns: the token and the server session it stands for.
    func checkAuthN(_ serialized: String, requestorID: String, deviceID: String?) throws(TokenRejection)
        -> (token: AuthNToken, session: AuthSession)
    {
        let signed: SignedToken<AuthNToken>
        do { signed = try SignedToken<AuthNToken>.parse(serialized) } catch { throw .malformed(error.reason) }
        guard signed.verify(with: signingKey.publicKey) else { throw .badSignature }
        let token = signed.body
        // An MVPD without authentication per requestor signs in once for every Programmer (single sign-on); one with
        // it binds the token to the Programmer that obtained it. An unknown MVPD counts as binding.
        let perRequestor = mvpd(token.mvpdID)?.authPerRequestor ?? true
        guard RequestorBinding.accepts(tokenIssuedTo: token.requestorID, presentedBy: requestorID, authnPerRequestor: perRequestor)
        else {
            throw .wrongRequestor(token: token.requestorID, presented: requestorID)
        }
        guard integrates(requestorID, token.mvpdID) else {
            throw .mvpdNotIntegrated(mvpd: token.mvpdID, requestor: requestorID)
        }
        guard !token.isExpired(at: now()) else { throw .expired(TokenDate.format(token.expires)) }
        if let deviceID, !token.matches(deviceID: deviceID) { throw .deviceMismatch }
        guard let session = state.withLock({ $0.sessions.values.first { $0.guid == token.guid } }) else {
            throw .unknownSession
        }
        guard !session.revoked else { throw .sessionRevoked }
        return (token, session)
    }

    /// Checks an authorization token: readable, signed by us, this resource and Programmer, alive, this device.
    func checkAuthZ(_ serialized: String, requestorID: String, resource: String?, deviceID: String) throws(TokenRejection)
        -> AuthZToken
    {
        let signed: SignedToken<AuthZToken>
        do { signed = try SignedToken<AuthZToken>.parse(serialized) } catch { throw .malformed(error.reason) }
        guard signed.verify(with: signingKey.publicKey) else { throw .badSignature }
        let token = signed.body
        guard token.requestorID == requestorID else {
            throw .wrongRequestor(token: token.requestorID, presented: requestorID)
        }
        if let resource, resource != token.resourceID {
            throw .resourceMismatch(token: token.resourceID, presented: resource)
        }
        guard !token.isExpired(at: now()) else { throw .expired(TokenDate.format(token.expires)) }
        guard token.matches(deviceID: deviceID) else { throw .deviceMismatch }
        return token
    }

    /// Verifies a media token once: a second presentation of the same token is refused as a replay.
    public func verifyMediaToken(_ token: String, resourceID: String?) -> (MediaTokenVerdict, SignedToken<MediaToken>?) {
        let now = now()
        let (verdict, signed) = MediaTokenVerifier(key: signingKey.publicKey).verify(
            token, resourceID: resourceID, now: now)
        guard verdict == .validToken, let signed else { return (verdict, signed) }
        let firstUse = state.withLock { state -> Bool in
            state.prune(now: now)
            guard state.usedMediaTokens[signed.signature] == nil else { return false }
            state.usedMediaTokens[signed.signature] = signed.body.expires
            return true
        }
        return (firstUse ? .validToken : .tokenAlreadyUsed, signed)
    }
}
