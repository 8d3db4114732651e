import AccessEnabler
import Foundation
import PassProtocol

/// What an app's Flows card says about its sign-in: read from the storage the app reads **now** and judged by the
/// SDK's own rules — ``TokenStorage/hasValidAuthn(_:)`` and ``TokenStorage/copySSOToken(_:)`` over ``TokenValidity``,
/// the answer `checkAuthentication` would give — and by the service's ``RequestorBinding``. Not the last callback the
/// app happened to receive: another app's logout on the shared storage signs this one out without a callback.
struct SignInState: Encodable, Sendable, Equatable {
    enum State: String, Encodable, Sendable {
        /// A token the SDK uses and the service accepts.
        case signedIn
        /// The SDK would answer 1 (an SSO copy of another Programmer's token), but the service refuses that token.
        case deviceOnly
        case signedOut
    }

    var state: State
    var mvpd: String?
    var expires: Date?
    /// One sentence: why, naming the rule.
    var text: String
    /// When the app's own last answer (`setAuthenticationStatus`) says otherwise: the app shows a stale state until it
    /// calls checkAuthentication or setRequestor again (field problem #17).
    var stale: String?
    /// When the SDK would count another Programmer's token by silent single sign-on: that Programmer.
    var copiedFrom: String?

    /// Judges `storage` for `requestorID` on `deviceID`.
    ///
    /// - Parameters:
    ///   - configuration: the Programmer's configuration as the SDK receives it; `nil` when the console does not know
    ///     it (the issuer, per-requestor and passive rules then use the MVPDs found in the storage, unflagged).
    ///   - held: the rules the app's SDK holds now (``AccessEnabler/authenticationContext(now:)``: the configuration
    ///     of its last setRequestor). What the SDK counts is judged by these — the service's settings may have changed
    ///     since (a fault turned off), and the SDK answers by what it received until its next setRequestor; whether
    ///     the service accepts the token is judged by `configuration`, the service's settings now. `nil`: by
    ///     `configuration` alone (an app that has not configured).
    ///   - lastAnswer: the status of the app's last `setAuthenticationStatus`, if any.
    static func judge(
        storage: TokenStorage, requestorID: String, configuration: RequestorConfiguration?, held: SSOContext? = nil, deviceID: String,
        now: Date, lastAnswer: Bool?
    ) -> SignInState {
        let service = SSOContext(
            configuration, requestorID: requestorID, storage: storage, deviceID: deviceID, now: now)
        var sdk = held.flatMap { $0.requestorID == requestorID ? $0 : nil } ?? service
        sdk.now = now
        var state = judge(storage, sdk: sdk, service: service)
        switch (lastAnswer, state.state) {
        case (true?, .signedOut):
            state.stale =
                "The app was last told it is signed in (status 1) and still believes it: it learns otherwise at its "
                + "next checkAuthentication or setRequestor."
        case (false?, .signedIn):
            state.stale =
                "The app was last told it is not signed in (status 0); its next checkAuthentication will answer 1."
        default: break
        }
        return state
    }

    private static func judge(_ storage: TokenStorage, sdk context: SSOContext, service: SSOContext) -> SignInState {
        let requestor = context.requestorID
        if storage.hasValidAuthn(context), let (mvpd, token) = ownToken(storage, context) {
            return accepted(token, mvpd: mvpd, service: service, how: "stored for \(requestor)")
        }
        var copy = storage
        if let sso = copy.copySSOToken(context), let (mvpd, token) = ownToken(copy, context) {
            var state = accepted(
                token, mvpd: mvpd, service: service,
                how: "held for \(sso.sourceRequestorID), which the SDK copies for \(requestor) by silent single sign-on"
            )
            state.copiedFrom = sso.sourceRequestorID
            return state
        }
        if let passive = storage.passiveAuthenticationCandidate(context) {
            return SignInState(
                state: .signedOut, mvpd: passive,
                text:
                    "Not signed in for \(requestor): another Programmer holds a \(passive) sign-in, and \(passive) signs in "
                    + "per Programmer with passive authentication, which runs at the app's next setRequestor.")
        }
        for (mvpd, bucket) in (storage.requestors[requestor]?.mvpds ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let serialized = bucket.authnToken else { continue }
            let (validity, _) = TokenValidity.authN(
                serialized, allowedMvpds: context.allowedMvpds, now: context.now, deviceID: context.deviceID)
            if let refusal = Refusal.storage(validity, what: "the stored \(mvpd) token is") {
                return SignInState(
                    state: .signedOut, mvpd: mvpd, text: "Not signed in for \(requestor). \(refusal.sentence)")
            }
        }
        return SignInState(
            state: .signedOut, text: "Not signed in: the storage this app reads holds no sign-in for \(requestor).")
    }

    /// The requestor's valid authN token, as the SDK picks it (current MVPD first).
    private static func ownToken(_ storage: TokenStorage, _ context: SSOContext) -> (String, AuthNToken)? {
        guard let bucket = storage.requestors[context.requestorID] else { return nil }
        let order =
            (bucket.currentMvpdID.map { [$0] } ?? []) + bucket.mvpds.keys.sorted().filter { $0 != bucket.currentMvpdID }
        for mvpd in order {
            guard let serialized = bucket.mvpds[mvpd]?.authnToken else { continue }
            let (validity, token) = TokenValidity.authN(
                serialized, allowedMvpds: context.allowedMvpds, now: context.now, deviceID: context.deviceID)
            if validity.isValid, let token { return (mvpd, token) }
        }
        return nil
    }

    /// A token the SDK counts, judged by the service's settings now (`service`): accepted, or refused by its binding.
    private static func accepted(_ token: AuthNToken, mvpd: String, service: SSOContext, how: String) -> SignInState {
        let requestor = service.requestorID
        guard service.accepts(token) else {
            let rule = TokenRejection.rule(forCode: RequestorBinding.rejectionCode) ?? RequestorBinding.rejectionCode
            return SignInState(
                state: .deviceOnly, mvpd: mvpd, expires: token.expires,
                text: "Signed in on this device only: the SDK counts the \(mvpd) token (\(how)), but it was issued to "
                    + "\(token.requestorID) and \(mvpd) now signs in per Programmer, so the backend check “\(rule)” refuses "
                    + "it for \(requestor): its next authorization fails and the SDK clears it (its next setRequestor "
                    + "removes the copy).")
        }
        return SignInState(
            state: .signedIn, mvpd: mvpd, expires: token.expires,
            text: "Signed in with \(mvpd) until \(HealthCard.dateTime(token.expires)) (token \(how)).")
    }
}

extension SSOContext {
    /// The context the SDK builds at setRequestor, from the Programmer's configuration (``RequestorConfiguration``).
    init(
        _ configuration: RequestorConfiguration?, requestorID: String, storage: TokenStorage, deviceID: String?,
        now: Date
    ) {
        let mvpds = configuration?.mvpds ?? []
        self.init(
            requestorID: requestorID,
            allowedMvpds: configuration.map { Set($0.mvpds.map(\.id)) } ?? Set(storage.authnTokens.map(\.mvpd)),
            authnPerRequestorMvpds: Set(mvpds.filter(\.authPerAggregator).map(\.id)),
            passiveAuthnMvpds: Set(mvpds.filter(\.passiveAuthnEnabled).map(\.id)), now: now, deviceID: deviceID)
    }
}
