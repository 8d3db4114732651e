import Foundation
import PassProtocol

/// logout (seed 002 logout workflow, spec §1.12): storage cleared everywhere first, then the logout chain.
extension EntitlementEngine {
    func logout() async {
        if onRESTv2 { return await logoutRESTv2() }
        guard let requestor else { return }
        let storage = loadStorage()
        let mvpd = storage.currentMvpd(requestor: requestor.id)
        let viaPlatformSSO = Self.cameFromPlatformSSO(storage, requestor: requestor.id, mvpd: mvpd)
        // AND18 (spec §1.12): with no valid authN token (nobody signed in, or the sign-in expired) there is no session
        // to end: the SDK goes straight to the redirect-back URL. A logout URL without `mso_id` is refused by the
        // service (400), so the chain never reached the app and no status 0 came (a double tap on Sign out).
        var probe = storage
        let signedIn = mvpd != nil
            && (Self.valid(in: storage, requestor: requestor, deviceID: deviceID, now: now()) != nil || probe.copySSOToken(ssoContext(requestor)) != nil)
        pollTask?.cancel()
        pollTask = nil
        waitingAuthorizations = []
        updateStorage("logout: cleared every Programmer and MVPD") { $0.clearAll() }
        let svc = mvpd.flatMap { requestor.mvpd($0)?.useSVC } ?? false
        let redirect = svc ? configuration.svcRedirectURL : configuration.redirectURL
        // The service's logout needs the MVPD (`mso_id`): without one there is nothing to end there.
        let chain = mvpd.map { client(for: $0).logoutURL(requestorID: requestor.id, mvpdID: $0, deviceID: deviceID, redirectURL: redirect) }
        if viaPlatformSSO {
            // Cookbook flow I: status VSA203 at once; the sign-in lives in Settings → TV Provider, with no MVPD web
            // session to follow, so the server session ends directly (as on tvOS) and status 0 follows.
            status(.VSA203, message: "Signed in through Apple SSO: also sign out in Settings → TV Provider, or the next launch signs in again.")
        }
        switch (platform, viaPlatformSSO) {
        case (.iOS, false):
            // The web view follows the chain through the MVPD's logout page; handleExternalURL ends the flow.
            expectedRedirect = redirect
            advanceAuthentication { $0.logoutStarted() }
            callback(.navigateToUrl(url: signedIn ? chain ?? redirect : redirect, useSVC: svc), mvpd: mvpd)
        case (.tvOS, _), (.iOS, true):
            // No web view on tvOS (nor for a platform sign-in): end the server session directly, when there is one.
            if let chain, let url = URL(string: chain) { _ = try? await makeTransport().get(url) }
            advanceAuthentication { $0.finished() }
            callback(.setAuthenticationStatus(status: 0, errorCode: ErrorCode.USER_AUTHENTICATED), mvpd: mvpd)
        }
    }
}

/// getMetadata (spec §1.11): authN/authZ expiry, device ID, user metadata items.
extension EntitlementEngine {
    func getMetadata(key: Int, arguments: [String: String]?) async {
        if onRESTv2 { return await getMetadataRESTv2(key: key, arguments: arguments) }
        let answer: (JSONValue?, Bool)
        let authentication = validAuthentication()
        switch key {
        case PassConstants.METADATA_AUTHENTICATION:
            answer = (authentication.map { .string(TokenDate.format($0.token.expires)) }, false)
        case PassConstants.METADATA_AUTHORIZATION:
            if let authentication, let requestor, let resource = arguments?[PassConstants.METADATA_RESOURCE_ID_KEY],
                let stored = loadStorage().bucket(requestor: requestor.id, mvpd: authentication.mvpd)?.authzTokens[resource],
                case (.valid, let token?) = TokenValidity.authZ(stored, allowedMvpds: requestor.allowedMvpds, now: now())
            {
                answer = (.string(TokenDate.format(token.expires)), false)
            } else {
                answer = (nil, false)
            }
        case PassConstants.METADATA_DEVICE_ID:
            answer = (.string(deviceID), false)
        case PassConstants.METADATA_USER_META:
            answer = userMetadataItem(authentication, name: arguments?[PassConstants.METADATA_USER_META_KEY])
        default:
            answer = (nil, false)
        }
        callback(.setMetadataStatus(metadata: answer.0, encrypted: answer.1, key: key, arguments: arguments), mvpd: authentication?.mvpd)
    }

    /// The item as the backend sent it in `<userMeta>` (spec §6.5): its JSON value, and whether it is encrypted.
    private func userMetadataItem(_ authentication: ValidAuthentication?, name: String?) -> (JSONValue?, Bool) {
        guard let name, let text = authentication?.userMeta,
            let metadata = try? UserMetadata.decode(json: Data(text.utf8)), let value = metadata.data[name]
        else { return (nil, false) }
        return (value, metadata.isEncrypted(name))
    }
}
