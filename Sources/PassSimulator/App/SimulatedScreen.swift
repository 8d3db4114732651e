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
        var followingLogout = false
        var authenticated: Bool?
    }

    let webView = HeadlessWebView()
    private let player: SimulatedApp.Player
    private let redirectURL: String
    private let onCallback: @Sendable (EntitlementCallback) -> Void
    private let onFailure: @Sendable (SimulatedApp.Failure) -> Void
    private let state = Mutex(State())

    init(
        player: SimulatedApp.Player, redirectURL: String, onCallback: @escaping @Sendable (EntitlementCallback) -> Void,
        onFailure: @escaping @Sendable (SimulatedApp.Failure) -> Void
    ) {
        self.player = player
        self.redirectURL = redirectURL
        self.onCallback = onCallback
        self.onFailure = onFailure
    }

    /// The SDK this screen answers for (the app holds it; the SDK holds its delegate weakly).
    func attach(_ enabler: AccessEnabler) { state.withLock { $0.enabler = enabler } }

    func expect(_ navigation: SimulatedApp.Navigation) { state.withLock { $0.navigation = navigation } }

    var pendingProviders: [MVPD]? { state.withLock { $0.pendingProviders } }
    var pendingLoginURL: String? { state.withLock { $0.pendingLoginURL } }
    var isFollowingLogout: Bool { state.withLock { $0.followingLogout } }
    var authenticated: Bool? { state.withLock { $0.authenticated } }

    func providerAnswered() {
        state.withLock { state in
            state.pendingProviders = nil
            state.pendingLoginURL = nil
        }
    }

    /// The person signs in on the showing login page.
    func signIn(_ credentials: SimulatedApp.Credentials) async throws(SimulatedApp.Failure) {
        let (url, enabler) = state.withLock { ($0.pendingLoginURL, $0.enabler) }
        guard let url, let enabler else { throw .noLoginPending }
        let end: String
        do {
            end = try await webView.signIn(at: url, username: credentials.username, password: credentials.password)
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

    private func navigate(_ url: String) {
        let (navigation, enabler) = state.withLock { state in
            switch state.navigation {
            case .logout: state.followingLogout = true
            case .signIn: if case .person = player { state.pendingLoginURL = url }
            }
            return (state.navigation, state.enabler)
        }
        guard let enabler else { return }
        let webView = self.webView
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
            let redirectURL = self.redirectURL
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
        navigate(url)
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

    func status(_ statusDictionary: [String: String]) { onCallback(.status(statusDictionary: statusDictionary)) }
}
