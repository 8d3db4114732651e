import Foundation
import PassProtocol

/// checkAuthorization / getAuthorization (spec §1.8, seed 002 caching rules): one authZ token per resource, a
/// media token fetched every time and never stored.
extension EntitlementEngine {
    func authorize(_ resource: String, data: [String: String]?, startLogin: Bool) async {
        if onRESTv2 { return await authorizeRESTv2(resource, data: data, startLogin: startLogin) }
        guard let requestor else { return }
        // One read of the storage serves both the authN check and the authZ lookup (the common, warm path).
        let storage = loadStorage()
        guard let authentication = Self.valid(in: storage, requestor: requestor, deviceID: deviceID, now: now()) ?? validAuthentication()
        else {
            if startLogin {
                // getAuthorization: remember the resource, log in, then authorize by itself.
                waitingAuthorizations.append((resource, data))
                if self.authentication == .idle { await getAuthentication(forceAuthn: false, data: data) }
            } else {
                callback(.tokenRequestFailed(resource: resource, errorCode: ErrorCode.userNotAuthenticated.rawValue, errorDescription: ""))
                trackAuthorization(success: false, mvpd: nil, guid: nil, cached: false, code: ErrorCode.userNotAuthenticated.rawValue, details: nil)
            }
            return
        }
        let mvpd = authentication.mvpd
        let client = client(for: mvpd)
        let genericData = data.flatMap { try? String(decoding: JSONEncoder().encode($0), as: UTF8.self) }
        var authz = storage.bucket(requestor: requestor.id, mvpd: mvpd)?.authzTokens[resource]
        var cached = true
        if let stored = authz, !TokenValidity.authZ(stored, allowedMvpds: requestor.allowedMvpds, now: now(), deviceID: deviceID).0.isValid {
            updateStorage("expired authZ token for \(resource) removed", mvpd: mvpd) {
                $0.removeAuthorization(requestor: requestor.id, mvpd: mvpd, resource: resource)
            }
            authz = nil
        }
        do {
            if authz == nil {
                cached = false
                let token = try await client.authorizeDevice(
                    requestorID: requestor.id, mvpdID: mvpd, deviceID: deviceID, resource: resource,
                    authnToken: authentication.serialized, genericData: genericData)
                updateStorage("authZ token for \(resource) stored (replaces any earlier one)", mvpd: mvpd) {
                    $0.storeAuthorization(requestor: requestor.id, mvpd: mvpd, resource: resource, authzToken: token)
                }
                authz = token
            }
            let media = try await client.shortAuthorize(
                requestorID: requestor.id, mvpdID: mvpd, deviceID: deviceID, sessionGUID: authentication.token.guid, authzToken: authz!)
            callback(.setToken(token: media, resource: resource), mvpd: mvpd)
            trackAuthorization(success: true, mvpd: mvpd, guid: authentication.token.guid, cached: cached, code: nil, details: nil)
        } catch {
            let (code, description) = authorizationFailure(error, resource: resource)
            if code == .userNotAuthenticated {
                updateStorage("authN for \(requestor.id)/\(mvpd) refused by the server: tokens cleared", mvpd: mvpd) {
                    $0.clearTokens(requestor: requestor.id, mvpd: mvpd)
                }
                learnRequestorBinding(error, token: authentication.token)
            }
            fail(code.rawValue, "Authorization of \(resource) failed: \(description.isEmpty ? code.rawValue : description)", mvpd: mvpd)
            if code == .userNotAuthorized { status(.Z100, message: description) }
            callback(.tokenRequestFailed(resource: resource, errorCode: code.rawValue, errorDescription: description), mvpd: mvpd)
            trackAuthorization(success: false, mvpd: mvpd, guid: nil, cached: false, code: code.rawValue, details: description)
        }
    }

    /// The service refused a single sign-on copy because the token's MVPD binds tokens to the Programmer that
    /// obtained them (``RequestorBinding``): the MVPD switched to authentication per requestor after this app's
    /// `setRequestor`. Until the next `setRequestor` brings the new configuration, the SDK treats the MVPD as per
    /// requestor, so the next check does not copy the refused token back (it would be refused again, in a loop).
    func learnRequestorBinding(_ failure: SDKClient.Failure, token: AuthNToken) {
        guard case .status(401, _, RequestorBinding.rejectionCode?) = failure, let id = requestor?.id, token.requestorID != id,
            let index = requestor?.mvpds.firstIndex(where: { $0.ID == token.mvpdID }), requestor?.mvpds[index].hasAuthNPerRequestor == false
        else { return }
        requestor?.mvpds[index].hasAuthNPerRequestor = true
        emit(.storageChanged(domain: store.domain,
            change: "\(token.mvpdID) now binds tokens to their Programmer (the service refused \(token.requestorID)'s copy): no more SSO copies of it until the next setRequestor"),
            mvpd: token.mvpdID)
    }

    /// AuthN error vs AuthZ error vs network error (spec §5.2.5–5.2.6).
    func authorizationFailure(_ failure: SDKClient.Failure, resource: String) -> (ErrorCode, String) {
        switch failure {
        case .unreachable(let reason): return (.genericAuthorization, "The authorization service did not answer: \(reason)")
        case .status(403, let details, _): return (.userNotAuthorized, details ?? "")
        case .status(401, let details, _): return (.userNotAuthenticated, details ?? "")
        case .status(let code, let details, _): return (.internalAuthorization, "HTTP \(code)\(details.map { ": \($0)" } ?? "")")
        case .malformed(let reason): return (.internalAuthorization, "The answer cannot be read: \(reason)")
        }
    }

    func runWaitingAuthorizations() async {
        let waiting = waitingAuthorizations
        waitingAuthorizations = []
        for (resource, data) in waiting { await authorize(resource, data: data, startLogin: false) }
    }

    func failWaitingAuthorizations(code: String, description: String) {
        let waiting = waitingAuthorizations
        waitingAuthorizations = []
        for (resource, _) in waiting {
            callback(.tokenRequestFailed(resource: resource, errorCode: code, errorDescription: description))
            trackAuthorization(success: false, mvpd: nil, guid: nil, cached: false, code: code, details: description)
        }
    }

    func trackAuthorization(success: Bool, mvpd: String?, guid: String?, cached: Bool, code: String?, details: String?) {
        guard let requestor else { return }
        let data = requestor.tracking.authorization(success: success, mvpd: mvpd, guid: guid, cached: cached, errorCode: code, errorDetails: details)
        callback(.sendTrackingData(event: .authorizationDetection, data: data), mvpd: mvpd)
    }

    // MARK: - Preauthorization

    func checkPreauthorizedResources(_ resources: [String]) async {
        if onRESTv2 { return await preauthorizeRESTv2(resources) }
        guard let requestor else { return }
        guard let authentication = validAuthentication() else {
            callback(.preauthorizedResources(resources: []))
            return
        }
        // Resources named in the authN token need no server call (spec §1.9).
        let embedded = Set(authentication.token.authorizedResources.map { $0.lowercased() })
        if !embedded.isEmpty, resources.allSatisfy({ embedded.contains($0.lowercased()) }) {
            callback(.preauthorizedResources(resources: resources), mvpd: authentication.mvpd)
            return
        }
        do {
            let answer = try await client(for: authentication.mvpd).preauthorize(
                requestorID: requestor.id, deviceID: deviceID, resources: resources, authnToken: authentication.serialized)
            updateStorage("preauthorization answer stored", mvpd: authentication.mvpd) {
                $0.storePreauthorized(requestor: requestor.id, mvpd: authentication.mvpd, resources: answer.authorizedIDs)
            }
            callback(.preauthorizedResources(resources: answer.authorizedIDs), mvpd: authentication.mvpd)
        } catch {
            fail(AdvancedStatusCode.P100.rawValue, "Preauthorization failed: \(error)")
            status(.P100, message: "\(error)")
            callback(.preauthorizedResources(resources: []), mvpd: authentication.mvpd)
        }
    }
}
