import Foundation
import PassProtocol

/// A usable authN token of the current requestor.
struct ValidAuthentication: Sendable {
    var mvpd: String
    var serialized: String
    var token: AuthNToken
    var userMeta: String?
}

/// checkAuthentication, getAuthentication, setSelectedProvider, handleExternalURL (seed 002 steps 1–9).
extension EntitlementEngine {
    func checkAuthentication() {
        guard requestor != nil else { return }
        if let valid = validAuthentication() {
            callback(.setAuthenticationStatus(status: 1, errorCode: ErrorCode.USER_AUTHENTICATED), mvpd: valid.mvpd)
            trackAuthentication(success: true, mvpd: valid.mvpd, guid: valid.token.guid, cached: true)
        } else {
            callback(.setAuthenticationStatus(status: 0, errorCode: ErrorCode.userNotAuthenticated.rawValue))
            trackAuthentication(success: false, mvpd: nil, guid: nil, cached: false)
        }
    }

    func getAuthentication(forceAuthn: Bool, data: [String: String]?) async {
        platformPick = nil
        guard let requestor else { return }
        let valid: (mvpd: String, guid: String?)?
        let cached: String?
        if onRESTv2 {
            // v2: the service's profile, and the MVPD chosen last while it may sign in (V2State).
            valid = forceAuthn ? nil : await currentSignInRESTv2().0.map { ($0.mvpd, $0.userID) }
            let kept = v2Kept()
            cached = kept?.currentMvpdID.flatMap { kept?.canAuthenticate == true && requestor.mvpd($0) != nil ? $0 : nil }
        } else {
            let storage = loadStorage()
            valid = forceAuthn ? nil : validAuthentication().map { ($0.mvpd, $0.token.guid) }
            cached = storage.currentMvpd(requestor: requestor.id).flatMap { mvpd in
                storage.bucket(requestor: requestor.id, mvpd: mvpd)?.canAuthenticate == true && requestor.mvpd(mvpd) != nil ? mvpd : nil
            }
        }
        let request = AuthenticationStateMachine.Request(
            validMvpd: valid?.mvpd, forced: forceAuthn, preselected: preselectedMvpd.flatMap { requestor.mvpd($0) != nil ? $0 : nil },
            cachedMvpd: cached, platformPicker: usesPlatformPicker(requestor), hasProviders: !requestor.mvpds.isEmpty)
        let (action, interrupted) = advanceAuthentication { $0.getAuthentication(request) }
        if let interrupted {
            fail("flow", "getAuthentication while authentication is \(interrupted.description): restarting it.")
            pollTask?.cancel()
        }
        if case .alreadyAuthenticated = action {} else if onRESTv2 {
            // v2 has no generic-data parameter (docs/sdk.md): not sent.
            if data != nil { logger.debug("getAuthentication(withData:) on REST API v2: the data is not sent (v2 has no such parameter)") }
            genericData = nil
        } else {
            genericData = data.flatMap { try? String(decoding: JSONEncoder().encode($0), as: UTF8.self) }
        }
        switch action {
        case .alreadyAuthenticated(let mvpd):
            // Step 1–2: a valid token ends the flow at once.
            callback(.setAuthenticationStatus(status: 1, errorCode: ErrorCode.USER_AUTHENTICATED), mvpd: mvpd)
            trackAuthentication(success: true, mvpd: mvpd, guid: valid?.guid, cached: true)
        case .login(let mvpd):
            // Step 3: a cached MVPD that may authenticate, or one the app chose, skips the picker.
            if mvpd == request.preselected { preselectedMvpd = nil }
            await startLogin(mvpd: mvpd)
        case .platformSignIn:
            // Step 4 with Apple SSO: the system picker.
            await platformSignIn(requestor)
        case .noProviders:
            callback(.setAuthenticationStatus(status: 0, errorCode: ErrorCode.genericAuthentication.rawValue))
            trackAuthentication(success: false, mvpd: nil, guid: nil, cached: false)
        case .showPicker:
            // Step 4: the SDK's own picker.
            callback(.displayProviderDialog(mvpds: requestor.mvpds))
        }
    }

    func setSelectedProvider(_ mvpdID: String?) async {
        emit(.apiCall(method: .setSelectedProvider, arguments: ["mvpd": mvpdID ?? "nil"]))
        guard let requestor else {
            fail(ErrorCode.internalError.rawValue, "setSelectedProvider needs a successful setRequestor first.")
            return
        }
        guard let mvpdID, let mvpd = requestor.mvpd(mvpdID) else {
            if let mvpdID { fail(ErrorCode.providerNotSelected.rawValue, "Unknown MVPD \(mvpdID): treated as cancel.") }
            cancelAuthentication()
            return
        }
        let previous = preselectedMvpd ?? rememberedMvpd(requestor.id)
        if previous != mvpd.ID {
            callback(.sendTrackingData(event: .mvpdSelection, data: requestor.tracking.mvpdSelection(mvpd: mvpd.ID)), mvpd: mvpd.ID)
        }
        switch authenticationMachine.providerSelected(mvpd.ID) {
        case .login(let id): await startLogin(mvpd: id)
        case .remember(let id): preselectedMvpd = id  // Remembered for the next getAuthentication.
        case .cancel: cancelAuthentication()
        }
    }

    func getSelectedProvider() {
        emit(.apiCall(method: .getSelectedProvider, arguments: [:]))
        let id = preselectedMvpd ?? requestor.flatMap { rememberedMvpd($0.id) }
        callback(.selectedProvider(mvpd: id.flatMap { requestor?.mvpd($0) }))
    }

    /// Step 5–6: the login page (iOS) or a registration code (tvOS).
    func startLogin(mvpd: String) async {
        guard let requestor, let info = requestor.mvpd(mvpd) else { return }
        if platform == .tvOS {
            await startSecondScreen(mvpd: mvpd)
            return
        }
        if onRESTv2 {
            await startLoginRESTv2(mvpd: mvpd, info: info)
            return
        }
        advanceAuthentication { $0.loginPageOpened(mvpd: mvpd, passive: false) }
        // An MVPD that requires SFSafariViewController returns to the app's custom scheme (cookbook step 5).
        let redirect = info.useSVC ? configuration.svcRedirectURL : configuration.redirectURL
        expectedRedirect = redirect
        let url = client(for: mvpd).loginURL(
            requestorID: requestor.id, mvpdID: mvpd, deviceID: deviceID, redirectURL: redirect, genericData: genericData)
        callback(.navigateToUrl(url: url, useSVC: info.useSVC), mvpd: mvpd)
    }

    /// Cancel (seed 002): reset the flow, erase this Programmer's MVPD, keep the rest of the storage.
    func cancelAuthentication() {
        guard let requestor else { return }
        pollTask?.cancel()
        pollTask = nil
        preselectedMvpd = nil
        expectedRedirect = nil
        advanceAuthentication { $0.finished() }
        if onRESTv2 {
            v2Login = nil
            eraseRESTv2Sign("cancel: erased the current MVPD of \(requestor.id)", requestor: requestor.id, mvpd: nil)
        } else {
            updateStorage("cancel: erased the current MVPD of \(requestor.id)") { $0.eraseCurrentMvpd(requestor: requestor.id) }
        }
        callback(.setAuthenticationStatus(status: 0, errorCode: ErrorCode.providerNotSelected.rawValue))
        status(.N005)
        trackAuthentication(success: false, mvpd: nil, guid: nil, cached: false)
        failWaitingAuthorizations(code: ErrorCode.userNotAuthenticated.rawValue, description: "The user cancelled authentication.")
    }

    func handleExternalURL(_ url: String) async {
        emit(.apiCall(method: .handleExternalURL, arguments: ["url": url]))
        if let expected = expectedRedirect, !PassConstants.isRedirect(url, to: expected) {
            refuseRedirect(url, expected: expected)
            return
        }
        let error = URLComponents(string: url)?.queryItems?.first(where: { $0.name == "error" })?.value
        let action = advanceAuthentication { $0.redirectReceived(error: error) }
        if case .ignored = action {} else { expectedRedirect = nil }
        switch action {
        case .logoutFinished:
            callback(.setAuthenticationStatus(status: 0, errorCode: ErrorCode.USER_AUTHENTICATED))
        case .loginFailed(let error):
            fail(ErrorCode.providerNotSelected.rawValue, "The login ended with error \(error).")
            cancelAuthentication()
        case .fetchToken(let mvpd):
            if onRESTv2 { await finishRESTv2Login(code: v2Login?.code, mvpd: mvpd) } else { await fetchAuthNToken(mvpd: mvpd) }
        case .ignored(let state):
            fail(ErrorCode.internalError.rawValue, "handleExternalURL(\(url)) while authentication is \(state): ignored.")
        }
    }

    /// `handleExternalURL` with a URL that is not the redirect the open login or logout ends at (a login shown in
    /// SFSafariViewController returns to the app's custom scheme, a web view login to `adobepass://ios.app`): refused,
    /// nothing fetched. A login ends as failed (`setAuthenticationStatus(0, Generic Authentication Error)`, so the app
    /// does not wait forever); a logout stays open for the right URL.
    private func refuseRedirect(_ url: String, expected: String) {
        let scheme = URLComponents(string: url)?.scheme.map { "\($0)://" } ?? "no scheme"
        let message = "handleExternalURL(\(url)) refused: this flow ends at \(expected), not at \(scheme). "
            + (expected.hasPrefix(PassConstants.CUSTOM_SCHEME_PREFIX)
                ? "The MVPD requires SFSafariViewController, which returns to the app's custom scheme."
                : "The login was shown in the app's web view, which ends at \(PassConstants.ADOBEPASS_REDIRECT_URL).")
        if case .awaitingLogin(let mvpd, _) = authentication {
            expectedRedirect = nil
            authenticationFailed(mvpd: mvpd, code: .genericAuthentication, message: message, errorCode: "redirect_mismatch")
        } else {
            fail("redirect_mismatch", message)
        }
    }

    /// Step 9: `sessionDevice` after the login; stores the token and reports the result.
    func fetchAuthNToken(mvpd: String) async {
        guard let requestor else { return }
        advanceAuthentication { $0.tokenRequested(mvpd: mvpd) }
        let failureCode: ErrorCode
        let message: String
        do {
            switch try await client(for: mvpd).sessionDevice(requestorID: requestor.id, deviceID: deviceID) {
            case .token(let serialized, let userMeta):
                let (validity, token) = TokenValidity.authN(serialized, allowedMvpds: requestor.allowedMvpds, now: now())
                if validity.isValid, let token {
                    let viaPlatform = platformPick == token.mvpdID
                    platformPick = nil
                    updateStorage("authN token stored for \(requestor.id)/\(token.mvpdID)", mvpd: token.mvpdID) {
                        $0.storeAuthentication(requestor: requestor.id, mvpd: token.mvpdID, authnToken: serialized, userMeta: userMeta)
                        if viaPlatform { $0.requestors[requestor.id]?.mvpds[token.mvpdID]?.platformSignIn = true }
                    }
                    advanceAuthentication { $0.finished() }
                    callback(.setAuthenticationStatus(status: 1, errorCode: ErrorCode.USER_AUTHENTICATED), mvpd: token.mvpdID)
                    trackAuthentication(success: true, mvpd: token.mvpdID, guid: token.guid, cached: false)
                    await runWaitingAuthorizations()
                    return
                }
                failureCode = .genericAuthentication
                message = "The authentication token is not usable: \(validity.explanation)."
            case .pendingLogout:
                failureCode = .genericAuthentication
                message = "The server ended this session (pending logout)."
            }
        } catch {
            switch error {
            case .unreachable(let reason): (failureCode, message) = (.providerNotAvailable, "sessionDevice got no answer: \(reason)")
            case .status(let code, let details, let rejection) where rejection == TokenRejection.unknownSession.code:
                // The login was not (yet) recorded on the server for this device: handleExternalURL before the login
                // finished, or a login for another device (field problem #33). Spec §3.3 N130.
                (failureCode, message) = (.genericAuthentication, "sessionDevice answered \(code)\(details.map { ": \($0)" } ?? "")")
                status(.N130, message: "The server has no finished login for this device: the token was fetched before the login ended.")
            case .status(let code, let details, _):
                (failureCode, message) = (.internalAuthentication, "sessionDevice answered \(code)\(details.map { ": \($0)" } ?? "")")
            case .malformed(let reason): (failureCode, message) = (.genericAuthentication, "sessionDevice answer unreadable: \(reason)")
            }
        }
        authenticationFailed(mvpd: mvpd, code: failureCode, message: message)
    }

    /// Any authentication failure: canAuthenticate off, that pair's tokens cleared, the current MVPD unset.
    func authenticationFailed(mvpd: String, code: ErrorCode, message: String, errorCode: String? = nil) {
        guard let requestor else { return }
        fail(errorCode ?? code.rawValue, message)
        advanceAuthentication { $0.finished() }
        if onRESTv2 {
            v2Login = nil
            eraseRESTv2Sign("authentication failed: cleared \(requestor.id)/\(mvpd)", requestor: requestor.id, mvpd: mvpd)
        } else {
            updateStorage("authentication failed: cleared \(requestor.id)/\(mvpd)", mvpd: mvpd) {
                $0.clearTokens(requestor: requestor.id, mvpd: mvpd)
                $0.eraseCurrentMvpd(requestor: requestor.id)
            }
        }
        callback(.setAuthenticationStatus(status: 0, errorCode: code.rawValue), mvpd: mvpd)
        trackAuthentication(success: false, mvpd: nil, guid: nil, cached: false)
        failWaitingAuthorizations(code: ErrorCode.userNotAuthenticated.rawValue, description: message)
    }

    func trackAuthentication(success: Bool, mvpd: String?, guid: String?, cached: Bool) {
        guard let requestor else { return }
        let data = requestor.tracking.authentication(success: success, mvpd: mvpd, guid: guid, cached: cached)
        callback(.sendTrackingData(event: .authenticationDetection, data: data), mvpd: mvpd)
    }
}
