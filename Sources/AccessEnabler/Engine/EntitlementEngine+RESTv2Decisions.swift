import Foundation
import PassProtocol

/// Authorization, preauthorization, metadata and logout on REST API v2 (design note §8.5–8.7): one decision call per
/// `getAuthorization` (its permit carries the media token), nothing stored but the decision's end for `getMetadata`.
extension EntitlementEngine {
    /// The sign-in the calls after a login use: the kept profile while it lasts (one round trip on the warm path; a
    /// decision tells when the service no longer knows it), else the service's.
    func signInForDecisionRESTv2() async -> RESTv2SignIn? {
        guard let requestor else { return nil }
        if let copy = v2Kept()?.profile, copy.expires > now(), requestor.mvpd(copy.mvpd) != nil {
            return RESTv2SignIn(mvpd: copy.mvpd, profile: copy.profile, fromService: false)
        }
        return await currentSignInRESTv2().0
    }

    // MARK: - Authorization (§8.6)

    func authorizeRESTv2(_ resource: String, data: [String: String]?, startLogin: Bool) async {
        guard let requestor else { return }
        guard let signIn = await signInForDecisionRESTv2() else {
            if startLogin {
                // getAuthorization: remember the resource, log in, then authorize by itself.
                waitingAuthorizations.append((resource, data))
                if authentication == .idle { await getAuthentication(forceAuthn: false, data: data) }
            } else {
                callback(.tokenRequestFailed(resource: resource, errorCode: ErrorCode.userNotAuthenticated.rawValue, errorDescription: ""))
                trackAuthorization(success: false, mvpd: nil, guid: nil, cached: false, code: ErrorCode.userNotAuthenticated.rawValue, details: nil)
            }
            return
        }
        if data != nil { logger.debug("getAuthorization(withData:) on REST API v2: the data is not sent (v2 has no such parameter)") }
        let mvpd = signIn.mvpd
        let verdict: V2Verdict
        do {
            let decisions = try await v2Client(for: mvpd).authorize(mvpd: mvpd, resources: [resource])
            guard let decision = decisions.first(where: { $0.resource == resource }) ?? decisions.first else {
                verdict = V2Verdict(.internalAuthorization, "The decision answer names no resource.")
                return await authorizationFailedRESTv2(resource, requestor: requestor, mvpd: mvpd, verdict)
            }
            if decision.authorized == true, let serialized = decision.token?.serializedToken {
                if let end = decision.notAfter ?? decision.token?.notAfter { v2DecisionExpiries[resource] = EpochMilliseconds.date(end) }
                if decision.source == "degradation" { status(.Z010, message: "\(mvpd) is degraded: the service permitted \(resource) without the MVPD.") }
                if decision.source == "temppass" { status(.Z011, message: "\(resource) is permitted by a temporary pass.") }
                callback(.setToken(token: Self.mediaToken(serialized), resource: resource), mvpd: mvpd)
                trackAuthorization(success: true, mvpd: mvpd, guid: signIn.userID, cached: false, code: nil, details: nil)
                return
            }
            verdict = decision.error.map(Self.itemVerdict)
                ?? V2Verdict(.internalAuthorization, decision.authorized == true ? "The permit carries no media token." : "The decision is a deny without an error.")
        } catch {
            verdict = Self.topLevelVerdict(error)
        }
        await authorizationFailedRESTv2(resource, requestor: requestor, mvpd: mvpd, verdict)
    }

    private func authorizationFailedRESTv2(_ resource: String, requestor: ConfiguredRequestor, mvpd: String, _ verdict: V2Verdict) async {
        if verdict.signInGone {
            updateRESTv2State("the service no longer knows \(requestor.id)'s sign-in at \(mvpd) (\(verdict.v2Code ?? "")): profile copy dropped", mvpd: mvpd) { state in
                state.updateRequestor(requestor.id) { $0.profile = nil; $0.partnerFrameworkStatus = nil }
            }
        }
        let description = verdict.description
        fail(verdict.code.rawValue, "Authorization of \(resource) failed\(verdict.v2Code.map { " (\($0))" } ?? ""): \(description.isEmpty ? verdict.code.rawValue : description)", mvpd: mvpd)
        if let advanced = verdict.status { status(advanced, message: description) }
        callback(.tokenRequestFailed(resource: resource, errorCode: verdict.code.rawValue, errorDescription: description), mvpd: mvpd)
        trackAuthorization(success: false, mvpd: mvpd, guid: nil, cached: false, code: verdict.code.rawValue, details: description)
    }

    /// The media token as the app gets it: a `serializedToken` that is Base64 of `<signatureInfo>…` decoded (the
    /// seeds' form, which the verifier reads too), anything else as sent.
    static func mediaToken(_ serialized: String) -> String {
        guard let data = Data(base64Encoded: serialized), let text = String(data: data, encoding: .utf8), text.hasPrefix("<signatureInfo>") else {
            return serialized
        }
        return text
    }

    /// What a failed decision means for the app (docs/sdk.md's table of v2 answers).
    struct V2Verdict: Sendable {
        var code: ErrorCode
        var description: String
        var status: AdvancedStatusCode?
        /// The service no longer knows the sign-in: the kept profile goes.
        var signInGone = false
        var v2Code: String?

        init(_ code: ErrorCode, _ description: String, status: AdvancedStatusCode? = nil, signInGone: Bool = false, v2Code: String? = nil) {
            self.code = code
            self.description = description
            self.status = status
            self.signInGone = signInGone
            self.v2Code = v2Code
        }
    }

    /// The enhanced codes that mean "sign in again".
    static let authenticationCodes: Set<String> = [
        "authenticated_profile_missing", "authenticated_profile_expired", "authenticated_profile_invalidated",
        "authorization_denied_by_session_invalidated", "authorization_denied_by_hba_policies", "identity_not_recognized_by_mvpd",
    ]

    /// A decision's own error (item level).
    static func itemVerdict(_ error: V2Client.Problem) -> V2Verdict {
        let code = error.code ?? ""
        let words = error.words ?? ""
        if code.hasPrefix("temporary_access_") {
            return V2Verdict(.userNotAuthenticated, words, status: .N111, signInGone: true, v2Code: code)
        }
        if error.action == "authentication" || authenticationCodes.contains(code) {
            return V2Verdict(.userNotAuthenticated, words, signInGone: true, v2Code: code)
        }
        switch code {
        case "authorization_denied_by_mvpd", "authorization_denied_by_parental_controls":
            return V2Verdict(.userNotAuthorized, words, status: .Z100, v2Code: code)
        case "authorization_denied_by_degradation_rule":
            return V2Verdict(.userNotAuthorized, words, status: .Z169, v2Code: code)
        default:
            if error.action == "retry" { return V2Verdict(.genericAuthorization, words, status: .Z120, v2Code: code) }
            return V2Verdict(.internalAuthorization, words, v2Code: code)
        }
    }

    /// A decision call that failed as a whole (top level).
    static func topLevelVerdict(_ failure: SDKClient.Failure) -> V2Verdict {
        switch failure {
        case .unreachable(let reason):
            return V2Verdict(.genericAuthorization, "The authorization service did not answer: \(reason)")
        case .status(let status, let details, let code):
            let words = details ?? ""
            if let code, code.hasPrefix("temporary_access_") { return V2Verdict(.userNotAuthenticated, words, status: .N111, signInGone: true, v2Code: code) }
            if let code, authenticationCodes.contains(code) { return V2Verdict(.userNotAuthenticated, words, signInGone: true, v2Code: code) }
            if status == 401 { return V2Verdict(.internalAuthorization, "HTTP 401\(code.map { " \($0)" } ?? ""): \(words)", status: .R401, v2Code: code) }
            if code == "invalid_parameter_resources" { return V2Verdict(.internalAuthorization, "HTTP \(status) \(code ?? ""): \(words)", status: .Z130, v2Code: code) }
            return V2Verdict(.internalAuthorization, "HTTP \(status)\(code.map { " \($0)" } ?? "")\(words.isEmpty ? "" : ": \(words)")", v2Code: code)
        case .malformed(let reason):
            return V2Verdict(.internalAuthorization, "The answer cannot be read: \(reason)")
        }
    }

    // MARK: - Preauthorization

    func preauthorizeRESTv2(_ resources: [String]) async {
        guard let signIn = await signInForDecisionRESTv2() else {
            callback(.preauthorizedResources(resources: []))
            return
        }
        do {
            let decisions = try await v2Client(for: signIn.mvpd).preauthorize(mvpd: signIn.mvpd, resources: resources)
            let permitted = Set(decisions.filter { $0.authorized == true }.map(\.resource))
            callback(.preauthorizedResources(resources: resources.filter { permitted.contains($0) }), mvpd: signIn.mvpd)
        } catch {
            fail(AdvancedStatusCode.P100.rawValue, "Preauthorization failed: \(Self.describeV2(error))", mvpd: signIn.mvpd)
            status(.P100, message: Self.describeV2(error))
            callback(.preauthorizedResources(resources: []), mvpd: signIn.mvpd)
        }
    }

    // MARK: - Metadata (§8.7)

    func getMetadataRESTv2(key: Int, arguments: [String: String]?) async {
        var answer: (JSONValue?, Bool) = (nil, false)
        var mvpd: String?
        switch key {
        case PassConstants.METADATA_AUTHENTICATION:
            let signIn = await signInForDecisionRESTv2()
            mvpd = signIn?.mvpd
            answer = (signIn.map { .string(TokenDate.format($0.expires)) }, false)
        case PassConstants.METADATA_AUTHORIZATION:
            // Known only after a permit in this run (FAQ #authorization-phase-faq4: decisions are not stored).
            if let resource = arguments?[PassConstants.METADATA_RESOURCE_ID_KEY], let end = v2DecisionExpiries[resource], end > now() {
                answer = (.string(TokenDate.format(end)), false)
            }
        case PassConstants.METADATA_DEVICE_ID:
            answer = (.string(deviceID), false)
        case PassConstants.METADATA_USER_META:
            // Read from the service each time: attributes may change during authorization (FAQ #authentication-phase-faq18).
            let signIn = requestor == nil ? nil : await currentSignInRESTv2().0
            mvpd = signIn?.mvpd
            if let name = arguments?[PassConstants.METADATA_USER_META_KEY], let attribute = signIn?.profile.attributes[name] {
                answer = (attribute.value, attribute.state == "enc")
            }
        default:
            break
        }
        callback(.setMetadataStatus(metadata: answer.0, encrypted: answer.1, key: key, arguments: arguments), mvpd: mvpd)
    }

    // MARK: - Logout (§8.5)

    func logoutRESTv2() async {
        guard let requestor else { return }
        pollTask?.cancel()
        pollTask = nil
        waitingAuthorizations = []
        v2Login = nil
        let kept = v2Kept()
        var mvpd = (kept?.currentMvpdID ?? kept?.profile?.mvpd).flatMap { requestor.mvpd($0) != nil ? $0 : nil }
        if mvpd == nil, let profiles = try? await v2Client().profiles() {
            mvpd = profiles.keys.sorted().first { requestor.mvpd($0) != nil }
        }
        guard let mvpd else {
            // Nothing to end on the service.
            advanceAuthentication { $0.finished() }
            callback(.setAuthenticationStatus(status: 0, errorCode: ErrorCode.USER_AUTHENTICATED))
            return
        }
        let viaPartner = kept?.profile?.mvpd == mvpd && (kept?.profile?.type == "appleSSO" || kept?.platformSignIn == true)
        let svc = requestor.mvpd(mvpd)?.useSVC ?? false
        let redirect = svc ? configuration.svcRedirectURL : configuration.redirectURL
        let client = v2Client(for: mvpd)
        let answer: Result<V2.Logout, SDKClient.Failure>
        do { answer = .success(try await client.logout(mvpd: mvpd, redirectURL: redirect)) } catch { answer = .failure(error) }
        eraseRESTv2Sign("logout: ended \(requestor.id)'s sign-in at \(mvpd)", requestor: requestor.id, mvpd: mvpd)
        switch answer {
        case .success(let logout) where logout.actionName == "partner_logout" || (viaPartner && logout.actionName == "logout"):
            // Apple SSO (the seeds' flow I): the user also signs out in Settings → TV Provider.
            status(.VSA203, message: "Signed in through Apple SSO: also sign out in Settings → TV Provider, or the next launch signs in again.")
        case .success(let logout) where logout.actionName == "logout" && logout.url != nil && platform == .iOS:
            // The web view follows the MVPD's logout; handleExternalURL ends the flow.
            expectedRedirect = redirect
            advanceAuthentication { $0.logoutStarted() }
            callback(.navigateToUrl(url: client.absolute(logout.url ?? ""), useSVC: svc), mvpd: mvpd)
            return
        case .success:
            break  // complete, invalid; a logout URL on tvOS (no browser: cookbook E)
        case .failure(let failure):
            fail("logout", "The logout at \(mvpd) failed: \(Self.describeV2(failure))", mvpd: mvpd)
        }
        advanceAuthentication { $0.finished() }
        callback(.setAuthenticationStatus(status: 0, errorCode: ErrorCode.USER_AUTHENTICATED), mvpd: mvpd)
    }
}
