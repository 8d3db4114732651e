import Foundation
import PassProtocol

/// A sign-in on REST API v2: the profile the service answered (or, without an answer, the copy kept in ``V2State``).
struct RESTv2SignIn: Sendable {
    var mvpd: String
    var profile: V2.Profile
    /// False when the service gave no answer and the kept copy stands in.
    var fromService: Bool

    /// Tracking's GUID: the profile's `userID`.
    var userID: String? { profile.attributes["userID"]?.value.plainText }
    var expires: Date { EpochMilliseconds.date(profile.notAfter) }
}

/// REST API v2 under the seeds' API (docs/design/sdk-on-rest-v2.md §8): the clients, the kept state, the sign-in
/// lookup, the login and the profile after it.
extension EntitlementEngine {
    // MARK: - Clients and state

    /// The v2 client for a service provider (default: the requestor's). Only on v2.
    func v2Client(base: URL? = nil, requestorID: String? = nil) -> V2Client {
        V2Client(
            base: base ?? requestor?.serviceProvider ?? configuration.defaultServiceProvider,
            requestorID: requestorID ?? requestor?.id ?? pendingRequestorID ?? "", transport: makeTransport(), registration: registration!,
            deviceID: deviceID)
    }

    /// The v2 client for calls about `mvpd`: the service provider that offered it, with the kept
    /// `AP-Partner-Framework-Status` when the kept profile at `mvpd` came from the partner (Apple).
    func v2Client(for mvpd: String?) -> V2Client {
        var client = v2Client(base: mvpd.flatMap { requestor?.mvpdServiceProviders[$0] })
        if let mvpd, let requestor, let kept = registration?.state().requestors[requestor.id], kept.profile?.mvpd == mvpd {
            client.partnerStatus = kept.partnerFrameworkStatus
        }
        return client
    }

    /// The name of the v2 state in `storageChanged` events.
    var v2StorageDomain: String { "app \(configuration.app.bundleID) (REST API v2)" }

    /// The kept state of the current requestor.
    func v2Kept() -> V2State.Requestor? {
        guard let requestor, let registration else { return nil }
        return registration.state().requestors[requestor.id]
    }

    /// Changes ``V2State`` at once (these changes are rare: a login, a cancel, a logout) and records what changed.
    func updateRESTv2State(_ what: String, mvpd: String? = nil, _ change: (inout V2State) -> Void) {
        guard let registration else { return }
        if registration.update(what, change) { emit(.storageChanged(domain: v2StorageDomain, change: what), mvpd: mvpd) }
    }

    /// Erases the requestor's chosen MVPD, its `canAuthenticate` and its kept profile (the seeds' `eraseCurrentMvpd`
    /// and `clearTokens`).
    func eraseRESTv2Sign(_ what: String, requestor: String, mvpd: String?) {
        updateRESTv2State(what, mvpd: mvpd) { state in
            state.updateRequestor(requestor) { entry in
                entry.currentMvpdID = nil
                entry.canAuthenticate = false
                entry.profile = nil
                entry.partnerFrameworkStatus = nil
            }
        }
    }

    /// The MVPD the user chose last for `requestor` (getSelectedProvider, the picker-skipping rule).
    func rememberedMvpd(_ requestorID: String) -> String? {
        if let registration { return registration.state().requestors[requestorID]?.currentMvpdID }
        return loadStorage().currentMvpd(requestor: requestorID)
    }

    /// setRequestor's work on v2 (§8.1): the device identifier's check, nothing else (no importer, sanitizer,
    /// clean-up or passive authentication: no `N001`, no `SEC412`).
    func prepareRESTv2() {
        guard let registration else { return }
        let kept = registration.state().deviceIdentifier
        guard kept != deviceID else { return }
        if kept != nil {
            fail("device_identifier", "The device identifier changed: the service no longer knows the old one's profiles (FAQ authentication-phase-faq13).")
        }
        updateRESTv2State(kept == nil ? "device identifier kept" : "device identifier changed: profile copies dropped") { state in
            if state.deviceIdentifier != nil {
                for id in state.requestors.keys { state.updateRequestor(id) { $0.profile = nil; $0.partnerFrameworkStatus = nil } }
            }
            state.deviceIdentifier = deviceID
        }
    }

    // MARK: - Which sign-in counts

    /// The requestor's sign-in (§8): `GET profiles/{remembered MVPD}` (or `GET profiles`), the chosen profile kept.
    /// Without an answer, the kept profile while it lasts, with the failure.
    func currentSignInRESTv2() async -> (RESTv2SignIn?, SDKClient.Failure?) {
        guard let requestor, registration != nil else { return (nil, nil) }
        let kept = v2Kept()
        let remembered = kept?.currentMvpdID.flatMap { requestor.mvpd($0) != nil ? $0 : nil }
        let profiles: [String: V2.Profile]
        do {
            if let remembered { profiles = try await v2Client(for: remembered).profile(mvpd: remembered) } else { profiles = try await v2Client().profiles() }
        } catch {
            if let copy = kept?.profile, copy.expires > now(), requestor.mvpd(copy.mvpd) != nil {
                return (RESTv2SignIn(mvpd: copy.mvpd, profile: copy.profile, fromService: false), error)
            }
            return (nil, error)
        }
        let now = now()
        let live = profiles.filter { requestor.mvpd($0.key) != nil && EpochMilliseconds.date($0.value.notAfter) > now }
        // FAQ #authentication-phase-faq11: the remembered MVPD's, else the one that lasts longest.
        let chosen = remembered.flatMap { mvpd in live[mvpd].map { (mvpd, $0) } }
            ?? live.max { ($0.value.notAfter, $1.key) < ($1.value.notAfter, $0.key) }.map { ($0.key, $0.value) }
        guard let (mvpd, profile) = chosen else {
            if kept?.profile != nil {
                updateRESTv2State("no profile on the service: the copy of \(requestor.id)'s dropped") { state in
                    state.updateRequestor(requestor.id) { $0.profile = nil; $0.partnerFrameworkStatus = nil }
                }
            }
            return (nil, nil)
        }
        keepRESTv2Profile(requestor: requestor.id, mvpd: mvpd, profile: profile, partnerStatus: kept?.profile?.mvpd == mvpd ? kept?.partnerFrameworkStatus : nil)
        return (RESTv2SignIn(mvpd: mvpd, profile: profile, fromService: true), nil)
    }

    /// Keeps `profile` as the requestor's sign-in at `mvpd` (and makes `mvpd` the chosen one).
    func keepRESTv2Profile(requestor: String, mvpd: String, profile: V2.Profile, partnerStatus: String?) {
        let viaPlatform = platformPick == mvpd
        platformPick = nil
        updateRESTv2State("profile of \(requestor)/\(mvpd) kept", mvpd: mvpd) { state in
            state.updateRequestor(requestor) { entry in
                entry.currentMvpdID = mvpd
                entry.canAuthenticate = true
                entry.profile = V2State.KeptProfile(mvpd: mvpd, profile)
                entry.partnerFrameworkStatus = partnerStatus
                entry.platformSignIn = viaPlatform ? true : nil
            }
        }
    }

    // MARK: - checkAuthentication

    func checkAuthenticationRESTv2() async {
        guard requestor != nil else { return }
        let (signIn, failure) = await currentSignInRESTv2()
        if let signIn {
            if let failure { fail("profile", "The service did not answer (\(Self.describeV2(failure))): the kept profile of \(signIn.mvpd) answers.") }
            callback(.setAuthenticationStatus(status: 1, errorCode: ErrorCode.USER_AUTHENTICATED), mvpd: signIn.mvpd)
            trackAuthentication(success: true, mvpd: signIn.mvpd, guid: signIn.userID, cached: true)
        } else {
            if let failure { fail(ErrorCode.userNotAuthenticated.rawValue, "The profiles could not be read: \(Self.describeV2(failure))") }
            callback(.setAuthenticationStatus(status: 0, errorCode: ErrorCode.userNotAuthenticated.rawValue))
            trackAuthentication(success: false, mvpd: nil, guid: nil, cached: false)
        }
    }

    // MARK: - Login (§8.3)

    /// The login on iOS: a session for `mvpd`, whose URL opens in the web view; or, when the service answers that a
    /// profile exists already, the profile at once.
    func startLoginRESTv2(mvpd: String, info: MVPD) async {
        let redirect = info.useSVC ? configuration.svcRedirectURL : configuration.redirectURL
        let client = v2Client(for: mvpd)
        let session: V2.Session
        do {
            session = try await client.createSession(mvpd: mvpd, redirectURL: redirect)
        } catch {
            authenticationFailed(mvpd: mvpd, code: Self.loginFailureCode(error), message: "The authentication session could not be made: \(Self.describeV2(error))",
                errorCode: Self.v2Code(error))
            return
        }
        await followRESTv2Session(session, client: client, mvpd: mvpd, redirect: redirect, useSVC: info.useSVC)
    }

    /// What a session answer asks for: the login page (`authenticate`), the profile (`authorize`), or nothing that
    /// can be done (`resume`, anything else).
    func followRESTv2Session(_ session: V2.Session, client: V2Client, mvpd: String, redirect: String, useSVC: Bool) async {
        switch session.actionName {
        case "authenticate" where session.url != nil:
            v2Login = (session.code, mvpd)
            expectedRedirect = redirect
            advanceAuthentication { $0.loginPageOpened(mvpd: mvpd, passive: false) }
            callback(.navigateToUrl(url: client.absolute(session.url ?? ""), useSVC: useSVC), mvpd: mvpd)
        case "authorize":
            // A profile exists (authenticated, authenticatedSSO), or stands in (degraded, temporary).
            if session.reasonType == "degraded" { status(.N010, message: "\(mvpd) is degraded: the service signs the user in without the MVPD.") }
            if session.reasonType == "temporary" { status(.N011, message: "\(mvpd) is a temporary pass.") }
            await finishRESTv2Login(code: nil, mvpd: mvpd)
        default:
            let missing = session.missingParameters.map { " (missing: \($0.joined(separator: ", ")))" } ?? ""
            authenticationFailed(mvpd: mvpd, code: .genericAuthentication,
                message: "The authentication session answered \(session.actionName)/\(session.reasonType)\(missing): no login to open.")
        }
    }

    /// After the login page reached the redirect URL (or a second-screen sign-in, or a session that answered
    /// `authorize`): the profile, by the session's code or by MVPD; then status 1 and the waiting authorizations.
    func finishRESTv2Login(code: String?, mvpd: String, partnerStatus: String? = nil) async {
        guard let requestor else { return }
        advanceAuthentication { $0.tokenRequested(mvpd: mvpd) }
        v2Login = nil
        let client = v2Client(for: mvpd)
        let profiles: [String: V2.Profile]
        do {
            if let code { profiles = try await client.profile(code: code) } else { profiles = try await client.profile(mvpd: mvpd) }
        } catch {
            authenticationFailed(mvpd: mvpd, code: Self.loginFailureCode(error), message: "The profile could not be read: \(Self.describeV2(error))",
                errorCode: Self.v2Code(error))
            return
        }
        guard let (found, profile) = profiles[mvpd].map({ (mvpd, $0) }) ?? profiles.first(where: { requestor.mvpd($0.key) != nil }).map({ ($0.key, $0.value) })
        else {
            // The login was not (yet) recorded for this session: read before the login ended (field problem #33).
            status(.N130, message: "The service has no profile for this login yet: it was read before the login ended.")
            authenticationFailed(mvpd: mvpd, code: .genericAuthentication, message: "The service answered no profile for the login with \(mvpd).")
            return
        }
        await signedInRESTv2(requestor, mvpd: found, profile: profile, partnerStatus: partnerStatus)
    }

    /// A new sign-in: kept, status 1, tracking, then the authorizations that waited (today's `fetchAuthNToken` tail).
    func signedInRESTv2(_ requestor: ConfiguredRequestor, mvpd: String, profile: V2.Profile, partnerStatus: String?) async {
        keepRESTv2Profile(requestor: requestor.id, mvpd: mvpd, profile: profile, partnerStatus: partnerStatus)
        advanceAuthentication { $0.finished() }
        callback(.setAuthenticationStatus(status: 1, errorCode: ErrorCode.USER_AUTHENTICATED), mvpd: mvpd)
        trackAuthentication(success: true, mvpd: mvpd, guid: profile.attributes["userID"]?.value.plainText, cached: false)
        await runWaitingAuthorizations()
    }

    // MARK: - Failures

    /// The authentication error code for a failed v2 call of a login.
    static func loginFailureCode(_ failure: SDKClient.Failure) -> ErrorCode {
        switch failure {
        case .unreachable: .providerNotAvailable
        case .status(let status, _, _) where status >= 500: .internalAuthentication
        case .status, .malformed: .genericAuthentication
        }
    }

    /// The enhanced error code of a failure, for the error event.
    static func v2Code(_ failure: SDKClient.Failure) -> String? {
        if case .status(_, _, let code?) = failure { return code }
        return nil
    }

    static func describeV2(_ failure: SDKClient.Failure) -> String {
        switch failure {
        case .unreachable(let reason): "no answer (\(reason))"
        case .status(let status, let details, let code): "HTTP \(status)\(code.map { " \($0)" } ?? "")\(details.map { ": \($0)" } ?? "")"
        case .malformed(let reason): "unreadable answer (\(reason))"
        }
    }
}
