import AccessEnabler
import Foundation
import MicroHTTP
import Locking

/// The delegate of a console app: remembers what the app would be showing (the picker, the login page) until the
/// person answers in the console page, and keeps the latest callbacks. Callbacks arrive on the SDK's delegate queue;
/// the page reads from any thread, so everything is behind one lock.
final class ConsoleAppDelegate: EntitlementDelegate, EntitlementStatus, Sendable {
    private struct State {
        var enabler: AccessEnabler?
        var pendingProviders: [AppView.MVPDSummary]?
        var pendingLoginURL: String?
        var loggingOut = false
        var followingLogoutChain = false
        var callbacks: [AppView.CallbackLine] = []
        var authenticated: Bool?
    }

    private let state = Mutex(State())
    private let webView: HeadlessWebView

    init(webView: HeadlessWebView) {
        self.webView = webView
    }

    /// The SDK this delegate answers for (held strongly here: the SDK holds its delegate weakly).
    func attach(_ enabler: AccessEnabler) { state.withLock { $0.enabler = enabler } }

    var pendingProviders: [AppView.MVPDSummary]? { state.withLock { $0.pendingProviders } }
    var pendingLoginURL: String? { state.withLock { $0.pendingLoginURL } }
    var recentCallbacks: [AppView.CallbackLine] { state.withLock { $0.callbacks } }
    var authenticated: Bool? { state.withLock { $0.authenticated } }
    /// True while the web view follows a logout chain on its own.
    var isBusy: Bool { state.withLock { $0.followingLogoutChain } }

    /// The person picked an MVPD (or cancelled) in the page.
    func providerAnswered() {
        state.withLock { state in
            state.pendingProviders = nil
            state.pendingLoginURL = nil
        }
    }

    /// Signs in on the pending login page, then hands the redirect URL to the SDK (`handleExternalURL`).
    func signIn(username: String, password: String) async throws(HTTPError) {
        let (url, enabler) = state.withLock { ($0.pendingLoginURL, $0.enabler) }
        guard let url, let enabler else {
            throw HTTPError(.conflict, code: "no_login_pending",
                message: "The app is not at an MVPD login page. Call getAuthentication and pick an MVPD first.")
        }
        let end: String
        do {
            end = try await webView.signIn(at: url, username: username, password: password)
        } catch {
            throw HTTPError(.unprocessableEntity, code: "login_failed", message: "The MVPD login page did not accept the sign-in.",
                detail: error.message)
        }
        state.withLock { $0.pendingLoginURL = nil }
        enabler.handleExternalURL(end)
    }

    private func record(_ callback: EntitlementCallback, _ summary: String) {
        state.withLock { state in
            state.callbacks.insert(AppView.CallbackLine(name: callback.name, summary: summary, at: Date()), at: 0)
            if state.callbacks.count > 20 { state.callbacks.removeLast(state.callbacks.count - 20) }
        }
    }

    private func navigate(_ url: String) {
        let (loggingOut, enabler) = state.withLock { state -> (Bool, AccessEnabler?) in
            if !state.loggingOut { state.pendingLoginURL = url }
            if state.loggingOut { state.followingLogoutChain = true }
            return (state.loggingOut, state.enabler)
        }
        guard loggingOut, let enabler else { return }
        // The logout chain runs in the app's web view with nothing for the person to do: follow it.
        let webView = self.webView
        Task {
            if let end = try? await webView.followLogout(url) { enabler.handleExternalURL(end) }
            self.state.withLock {
                $0.loggingOut = false
                $0.followingLogoutChain = false
            }
        }
    }

    // MARK: - EntitlementDelegate

    func setRequestorComplete(_ status: Int) { record(.setRequestorComplete(status: status), "status \(status)") }

    func setAuthenticationStatus(_ status: Int, errorCode: String?) {
        let errorCode = errorCode.flatMap { $0.isEmpty ? nil : $0 }
        state.withLock { state in
            state.authenticated = status == 1
            if status == 1 || errorCode != nil { state.pendingLoginURL = nil }
            state.pendingProviders = nil
        }
        record(.setAuthenticationStatus(status: status, errorCode: errorCode),
            "status \(status)" + (errorCode.map { ", \($0)" } ?? ""))
    }

    func displayProviderDialog(_ mvpds: [MVPD]) {
        state.withLock { $0.pendingProviders = mvpds.map { .init(id: $0.ID, displayName: $0.displayName, logoURL: $0.logoURL) } }
        record(.displayProviderDialog(mvpds: mvpds), mvpds.map(\.ID).joined(separator: ", "))
    }

    func navigateToUrl(_ url: String) {
        record(.navigateToUrl(url: url, useSVC: nil), url)
        navigate(url)
    }

    func navigateToUrl(_ url: String, useSVC: Bool) {
        record(.navigateToUrl(url: url, useSVC: useSVC), url)
        navigate(url)
    }

    func setToken(_ token: String, forResource resource: String) {
        record(.setToken(token: token, resource: resource), "\(resource): media token \(TokenJudge.preview(token))")
    }

    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String?) {
        record(.tokenRequestFailed(resource: resource, errorCode: errorCode, errorDescription: errorDescription),
            "\(resource): \(errorCode)" + (errorDescription.map { " — \($0)" } ?? ""))
    }

    func selectedProvider(_ mvpd: MVPD?) { record(.selectedProvider(mvpd: mvpd), mvpd?.ID ?? "none") }

    func sendTrackingData(_ data: [String], forEventType event: TrackingEvent) {
        record(.sendTrackingData(event: event, data: data), "\(event.rawValue) [\(data.joined(separator: ", "))]")
    }

    func setMetadataStatus(_ metadata: String?, encrypted: Bool, forKey key: Int, andArguments arguments: [String: String]?) {
        record(.setMetadataStatus(metadata: metadata, encrypted: encrypted, key: key, arguments: arguments),
            "key \(key): \(metadata ?? "nil")")
    }

    func preauthorizedResources(_ resources: [String]) {
        record(.preauthorizedResources(resources: resources), resources.isEmpty ? "none" : resources.joined(separator: ", "))
    }

    func presentTvProviderDialog() { record(.presentTvProviderDialog, "") }
    func dismissTvProviderDialog() { record(.dismissTvProviderDialog, "") }

    func status(_ statusDictionary: [String: String]) {
        record(.status(statusDictionary: statusDictionary),
            statusDictionary.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))
    }

    /// The app is about to call logout: the next navigateToUrl is the logout chain.
    func expectLogout() { state.withLock { $0.loggingOut = true } }
}
