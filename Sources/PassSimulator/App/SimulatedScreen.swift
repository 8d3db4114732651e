import AccessEnabler
import Foundation
import Locking
import PassProtocol

/// The delegate of a ``SimulatedApp``: what the app's screen shows (the picker, the login page) and how its
/// ``SimulatedApp/Player`` answers. Callbacks arrive on the SDK's delegate queue; the caller reads from any thread,
/// so the state is behind one lock.
final class SimulatedScreen: EntitlementDelegate, EntitlementStatus, Sendable {
    private struct State {
        weak var enabler: AccessEnabler?
        var navigation = SimulatedApp.Navigation.signIn
        var pendingProviders: [MVPD]?
        var pendingLoginURL: String?
        /// The pending login is shown in SFSafariViewController (``SimulatedScreen/safari``), not the app's web view.
        var pendingInSafari = false
        var followingLogout = false
        var authenticated: Bool?
    }

    /// The app's embedded web view (WKWebView): its user agent has no `Safari`, so an MVPD that refuses embedded
    /// browsers refuses it.
    let webView = HeadlessWebView(userAgent: SimulatedScreen.embeddedUserAgent)
    /// The SFSafariViewController the app presents for `navigateToUrl(_:useSVC: true)`: Safari's user agent and
    /// Safari's own cookies, not the app's.
    let safari = HeadlessWebView()
    static let embeddedUserAgent =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
    private let player: SimulatedApp.Player
    private let platform: Platform
    private let redirectURL: String
    private let svcRedirectURL: String
    private let onCallback: @Sendable (EntitlementCallback) -> Void
    private let onFailure: @Sendable (SimulatedApp.Failure) -> Void
    private let state = Mutex(State())

    init(
        player: SimulatedApp.Player, platform: Platform, redirectURL: String, svcRedirectURL: String, onCallback: @escaping @Sendable (EntitlementCallback) -> Void,
        onFailure: @escaping @Sendable (SimulatedApp.Failure) -> Void
    ) {
        self.player = player
        self.platform = platform
        self.redirectURL = redirectURL
        self.svcRedirectURL = svcRedirectURL
        self.onCallback = onCallback
        self.onFailure = onFailure
    }

    /// The SDK this screen answers for (the app holds it; the SDK holds its delegate weakly).
    func attach(_ enabler: AccessEnabler) { state.withLock { $0.enabler = enabler } }

    func expect(_ navigation: SimulatedApp.Navigation) {
        // tvOS has no web view: its logout ends the server session directly, so there is no chain to expect.
        if navigation == .logout, platform == .tvOS { return }
        state.withLock { $0.navigation = navigation }
    }

    var pendingProviders: [MVPD]? { state.withLock { $0.pendingProviders } }
    var pendingLoginURL: String? { state.withLock { $0.pendingLoginURL } }
    var isFollowingLogout: Bool { state.withLock { $0.followingLogout } }
    var authenticated: Bool? { state.withLock { $0.authenticated } }

    func providerAnswered() {
        state.withLock { state in
            state.pendingProviders = nil
            state.pendingLoginURL = nil
            state.pendingInSafari = false
        }
    }

    /// The person signs in on the showing login page.
    func signIn(_ credentials: SimulatedApp.Credentials) async throws(SimulatedApp.Failure) {
        let (url, enabler, inSafari) = state.withLock { ($0.pendingLoginURL, $0.enabler, $0.pendingInSafari) }
        guard let url, let enabler else { throw .noLoginPending }
        let end: String
        do {
            end = try await (inSafari ? safari : webView).signIn(at: url, username: credentials.username, password: credentials.password)
        } catch {
            throw .signInFailed(error.message)
        }
        state.withLock { $0.pendingLoginURL = nil }
        enabler.handleExternalURL(end)
    }

    // MARK: - The player's part

    private func pickProvider(_ mvpds: [MVPD]) {
        switch player {
        case .person:
            state.withLock { $0.pendingProviders = mvpds }
        case .script(let mvpd?, _, _):
            state.withLock { $0.enabler }?.setSelectedProvider(mvpd)
        case .script(nil, _, _):
            onFailure(.noProviderChosen(offered: mvpds.map(\.ID)))
        }
    }

    /// - Parameter inSafari: the SDK asked for SFSafariViewController (`navigateToUrl(_:useSVC: true)`).
    private func navigate(_ url: String, inSafari: Bool = false) {
        let (navigation, enabler) = state.withLock { state in
            switch state.navigation {
            case .logout: state.followingLogout = true
            case .signIn:
                if case .person = player {
                    state.pendingLoginURL = url
                    state.pendingInSafari = inSafari
                }
            }
            return (state.navigation, state.enabler)
        }
        guard let enabler else { return }
        let webView = inSafari ? self.safari : self.webView
        switch (navigation, player) {
        case (.logout, _):
            // The logout chain runs in the app's web view with nothing for the user to do: follow it.
            Task {
                do {
                    enabler.handleExternalURL(try await webView.followLogout(url))
                } catch {
                    self.onFailure(.logoutFailed("\(error)"))
                }
                self.state.withLock { state in
                    state.navigation = .signIn
                    state.followingLogout = false
                }
            }
        case (.signIn, .person):
            break  // the login page waits for the person
        case (.signIn, .script(_, nil, _)):
            onFailure(.noCredentials)
        case (.signIn, .script(_, let credentials?, let endsLoginOnFailure)):
            let redirectURL = inSafari ? self.svcRedirectURL : self.redirectURL
            Task {
                do {
                    enabler.handleExternalURL(
                        try await webView.signIn(at: url, username: credentials.username, password: credentials.password))
                } catch {
                    self.onFailure(.signInFailed("\(error)"))
                    if endsLoginOnFailure { enabler.handleExternalURL("\(redirectURL)?error=sign_in_failed") }
                }
            }
        }
    }

    // MARK: - EntitlementDelegate

    func setRequestorComplete(_ status: Int) { onCallback(.setRequestorComplete(status: status)) }

    func setAuthenticationStatus(_ status: Int, errorCode: String?) {
        onCallback(.setAuthenticationStatus(status: status, errorCode: errorCode))
        let failed = errorCode.map { !$0.isEmpty } ?? false
        state.withLock { state in
            state.authenticated = status == 1
            if status == 1 || failed { state.pendingLoginURL = nil }
            state.pendingProviders = nil
            // A logout that ended without a web chain (REST API v2: nothing to end, or the service had nothing for
            // the browser to do): the next navigateToUrl is a login.
            if status == 0, state.navigation == .logout, !state.followingLogout { state.navigation = .signIn }
        }
    }

    func displayProviderDialog(_ mvpds: [MVPD]) {
        onCallback(.displayProviderDialog(mvpds: mvpds))
        pickProvider(mvpds)
    }

    func navigateToUrl(_ url: String) {
        onCallback(.navigateToUrl(url: url, useSVC: nil))
        navigate(url)
    }

    func navigateToUrl(_ url: String, useSVC: Bool) {
        onCallback(.navigateToUrl(url: url, useSVC: useSVC))
        navigate(url, inSafari: useSVC)
    }

    func setToken(_ token: String, forResource resource: String) { onCallback(.setToken(token: token, resource: resource)) }

    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String?) {
        onCallback(.tokenRequestFailed(resource: resource, errorCode: errorCode, errorDescription: errorDescription))
    }

    func selectedProvider(_ mvpd: MVPD?) { onCallback(.selectedProvider(mvpd: mvpd)) }

    func sendTrackingData(_ data: [String], forEventType event: TrackingEvent) {
        onCallback(.sendTrackingData(event: event, data: data))
    }

    func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: Int, andArguments arguments: [String: String]?) {
        onCallback(.setMetadataStatus(metadata: metadata, encrypted: encrypted, key: key, arguments: arguments))
    }

    func preauthorizedResources(_ resources: [String]) { onCallback(.preauthorizedResources(resources: resources)) }

    func presentTvProviderDialog() { onCallback(.presentTvProviderDialog) }

    func dismissTvProviderDialog() { onCallback(.dismissTvProviderDialog) }

    // MARK: - EntitlementStatus

    func status(_ statusDictionary: [String: String]) {
        onCallback(.status(statusDictionary: statusDictionary))
        // A logout after an Apple SSO sign-in has no web chain (VSA203 comes first): the next navigateToUrl is a login.
        if statusDictionary["errorId"] == "VSA203" {
            state.withLock { state in
                if state.navigation == .logout, !state.followingLogout { state.navigation = .signIn }
            }
        }
    }
}
