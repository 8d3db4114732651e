import AccessEnabler
import ArgumentParser
import Foundation
import PassProtocol
import PassSimulator

/// Where `passconsole flow cancel` cancels: the two places the seed's overview names, where the SDK hands control to
/// the app and the user may back out ("the provider selection dialog … or the web view").
enum FlowCancelPoint: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// The provider picker (`displayProviderDialog`): the user closes it.
    case picker
    /// The MVPD's login page (`navigateToUrl`; on tvOS the registration code being polled): the user closes it.
    case login
}

extension FlowIntent {
    /// Who answers the screens: `cancel` leaves the picker and the login page to the run (a person who backs out);
    /// the other intents use the script made from `--mvpd`, `--user` and `--password`.
    var player: SimulatedApp.Player? {
        if case .cancel = self { return .person }
        return nil
    }
}

extension FlowRun {
    /// getAuthentication, then `setSelectedProvider(nil)` at `point` (seed 002: "your app is responsible for informing
    /// the AccessEnabler … calling setSelectedProvider() passing null"); succeeds on `setAuthenticationStatus(0)`
    /// with `Provider Not Selected Error`.
    mutating func cancel(at point: FlowCancelPoint, app: SimulatedApp, options: FlowOptions) async -> Bool {
        let enabler = app.enabler
        app.expect(.signIn)
        enabler.getAuthentication(forceAuthn: options.forceAuthn)
        var signedIn = false
        // A remembered provider skips the picker (the seeds' canAuthenticate rule, also with --force-authn): its login
        // page (or a TV's registration code) opens at once.
        var loginOpened = false
        let started = await wait(for: "displayProviderDialog, or the login page of the remembered provider") { callback in
            switch callback {
            case .displayProviderDialog: return .succeeded
            case .navigateToUrl:
                loginOpened = true
                return .succeeded
            case .status(let status) where status["errorId"] == AdvancedStatusCode.REGCODE.rawValue:
                loginOpened = true
                return .succeeded
            case .setAuthenticationStatus(let status, _):
                signedIn = status == 1
                return .failed
            default: return .wait
            }
        }
        guard started else {
            if signedIn { output.error("Already signed in: there is no authentication to cancel (log out first, or add --force-authn).") }
            return false
        }
        if loginOpened {
            guard point == .login else {
                output.error("The remembered provider skipped the picker (its login page opened at once): cancel --at login instead.")
                return false
            }
        } else if point == .login {
            guard let mvpd = options.mvpd else {
                output.error("cancel --at login needs --mvpd: the provider whose login page the user closes.")
                return false
            }
            app.providerAnswered()
            enabler.setSelectedProvider(mvpd)
            let opened = await wait(for: "the login page (navigateToUrl, or a registration code on tvOS)") { callback in
                switch callback {
                case .navigateToUrl: return .succeeded
                case .status(let status) where status["errorId"] == AdvancedStatusCode.REGCODE.rawValue: return .succeeded
                case .setAuthenticationStatus: return .failed
                default: return .wait
                }
            }
            guard opened else { return false }
        }
        app.providerAnswered()
        enabler.setSelectedProvider(nil)
        return await wait(for: "setAuthenticationStatus") { callback in
            guard case .setAuthenticationStatus(let status, let errorCode) = callback else { return .wait }
            return status == 0 && errorCode == ErrorCode.providerNotSelected.rawValue ? .succeeded : .failed
        }
    }

    /// checkAuthorization for each resource: setToken for every one, or tokenRequestFailed (no login is started).
    mutating func checkAuthorization(_ resources: [String], enabler: AccessEnabler) async -> Bool {
        for resource in resources { enabler.checkAuthorization(resource) }
        return await waitForTokens(resources)
    }

    /// Waits for `setToken` or `tokenRequestFailed` of every resource: succeeds when each got its token.
    mutating func waitForTokens(_ resources: [String]) async -> Bool {
        var pending = Set(resources)
        var refused = false
        return await wait(for: "setToken for \(resources.joined(separator: ", "))") { callback in
            switch callback {
            case .setToken(_, let resource): pending.remove(resource)
            case .tokenRequestFailed(let resource, _, _):
                pending.remove(resource)
                refused = true
            default: return .wait
            }
            return pending.isEmpty ? (refused ? .failed : .succeeded) : .wait
        }
    }

    /// getSelectedProvider: succeeds when `selectedProvider` names an MVPD (`{"mvpd": null}` exits non-zero).
    mutating func selectedProvider(enabler: AccessEnabler) async -> Bool {
        enabler.getSelectedProvider()
        return await wait(for: "selectedProvider") { callback in
            guard case .selectedProvider(let mvpd) = callback else { return .wait }
            return mvpd == nil ? .failed : .succeeded
        }
    }
}
