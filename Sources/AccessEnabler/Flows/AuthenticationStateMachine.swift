/// Where authentication stands, and what each input does to it (seed 002 steps 1–9, cancel, logout, the tvOS
/// second screen, passive authentication). Pure: the engine feeds it inputs and performs the actions it returns.
///
/// ```
/// idle ──getAuthentication──▶ pickingProvider ──providerSelected──▶ awaitingLogin ──redirect──▶ fetchingToken ──▶ idle
///   │                              (tvOS: codeShown ▶ polling ──signed in──▶ fetchingToken)
///   └──logoutStarted──▶ loggingOut ──redirect──▶ idle
/// ```
struct AuthenticationStateMachine: Sendable, Equatable {
    /// The states; each carries what is valid in it.
    enum State: Sendable, Equatable {
        case idle
        /// The picker is shown; `setSelectedProvider` continues.
        case pickingProvider
        /// The login page is loading in the app's web view; `handleExternalURL` continues.
        case awaitingLogin(mvpd: String, passive: Bool)
        /// tvOS: a registration code is shown; polling until someone signs in with it.
        case polling(mvpd: String, code: String)
        /// Fetching the authN token after the login.
        case fetchingToken(mvpd: String)
        /// The logout page is loading; `handleExternalURL` finishes it.
        case loggingOut

        /// The state as events report it to the console.
        var flowState: FlowState {
            switch self {
            case .idle: .idle
            case .pickingProvider: .pickingProvider
            case .awaitingLogin(let mvpd, _): .awaitingLogin(mvpd: mvpd)
            case .polling(let mvpd, let code): .polling(mvpd: mvpd, code: code)
            case .fetchingToken(let mvpd): .fetchingToken(mvpd: mvpd)
            case .loggingOut: .loggingOut
            }
        }

        /// A name for logs (`awaitingLogin(Dish)`): ``flowState``'s wire text.
        var description: String { flowState.rawValue }
    }

    private(set) var state = State.idle

    var description: String { state.description }
    var flowState: FlowState { state.flowState }

    // MARK: - getAuthentication

    /// What getAuthentication knows when it is called.
    struct Request: Equatable {
        /// The MVPD of a valid stored authN token of the requestor, if any.
        var validMvpd: String?
        var forced: Bool
        /// The MVPD the app chose with setSelectedProvider before calling, if it is one of the requestor's.
        var preselected: String?
        /// The cached MVPD that may authenticate without the picker (canAuthenticate), if any.
        var cachedMvpd: String?
        /// The platform's own picker (Apple SSO) applies.
        var platformPicker: Bool
        /// The requestor has MVPDs to offer.
        var hasProviders: Bool
    }

    enum StartAction: Equatable {
        /// Steps 1–2: status 1 at once with this MVPD.
        case alreadyAuthenticated(mvpd: String)
        /// Step 3: skip the picker and log in with this MVPD.
        case login(mvpd: String)
        /// Step 4 with platform SSO: the system picker.
        case platformSignIn
        /// Step 4: the SDK's picker (displayProviderDialog).
        case showPicker
        /// Nothing to pick from: a generic authentication error.
        case noProviders
    }

    /// getAuthentication. `interrupted` names a login that was still running (the owner stops its polling).
    mutating func getAuthentication(_ request: Request) -> (action: StartAction, interrupted: State?) {
        if !request.forced, let mvpd = request.validMvpd { return (.alreadyAuthenticated(mvpd: mvpd), nil) }
        var interrupted: State?
        switch state {
        case .idle, .pickingProvider: break
        case .awaitingLogin, .polling, .fetchingToken, .loggingOut:
            // A new getAuthentication restarts an unfinished one (the app lost track of it); tolerated and reported.
            interrupted = state
            state = .idle
        }
        if let mvpd = request.preselected ?? request.cachedMvpd { return (.login(mvpd: mvpd), interrupted) }
        if request.platformPicker {
            state = .pickingProvider
            return (.platformSignIn, interrupted)
        }
        guard request.hasProviders else {
            state = .idle
            return (.noProviders, interrupted)
        }
        state = .pickingProvider
        return (.showPicker, interrupted)
    }

    // MARK: - setSelectedProvider

    enum SelectionAction: Equatable {
        /// The picker is up: log in with this MVPD now.
        case login(mvpd: String)
        /// No picker: remember it for the next getAuthentication.
        case remember(mvpd: String)
        /// `nil` (or an unknown MVPD): cancel.
        case cancel
    }

    func providerSelected(_ mvpd: String?) -> SelectionAction {
        guard let mvpd else { return .cancel }
        return state == .pickingProvider ? .login(mvpd: mvpd) : .remember(mvpd: mvpd)
    }

    // MARK: - Progress

    /// The login page (or passive login) was handed to the web view.
    mutating func loginPageOpened(mvpd: String, passive: Bool) { state = .awaitingLogin(mvpd: mvpd, passive: passive) }

    /// tvOS: the registration code is on screen.
    mutating func codeShown(mvpd: String, code: String) { state = .polling(mvpd: mvpd, code: code) }

    /// The token is being fetched (after the redirect, a second-screen sign-in or platform SSO).
    mutating func tokenRequested(mvpd: String) { state = .fetchingToken(mvpd: mvpd) }

    /// The attempt ended: success, failure or cancel. Idempotent.
    mutating func finished() { state = .idle }

    /// A passive login ended (either way); an interactive login that replaced it is left alone.
    mutating func passiveLoginEnded() {
        if case .awaitingLogin(_, true) = state { state = .idle }
    }

    /// The logout chain was handed to the web view.
    mutating func logoutStarted() { state = .loggingOut }

    /// True while `code` for `mvpd` is the code on screen.
    func isPolling(mvpd: String, code: String) -> Bool { state == .polling(mvpd: mvpd, code: code) }

    // MARK: - handleExternalURL

    enum RedirectAction: Equatable {
        /// The logout chain ended at the redirect URL: status 0.
        case logoutFinished
        /// The login ended at the redirect URL: fetch the token for this MVPD.
        case fetchToken(mvpd: String)
        /// The login ended with `error=` (the user cancelled on the MVPD's page): cancel.
        case loginFailed(error: String)
        /// Nothing waits for a redirect in this state: ignore it (reported).
        case ignored(state: String)
    }

    mutating func redirectReceived(error: String?) -> RedirectAction {
        switch state {
        case .loggingOut:
            state = .idle
            return .logoutFinished
        case .awaitingLogin(let mvpd, _):
            if let error { return .loginFailed(error: error) }
            state = .fetchingToken(mvpd: mvpd)
            return .fetchToken(mvpd: mvpd)
        case .idle, .pickingProvider, .polling, .fetchingToken:
            // A second redirect for one login, or one after a cancel: tolerated, the first one already counted.
            return .ignored(state: state.description)
        }
    }
}
