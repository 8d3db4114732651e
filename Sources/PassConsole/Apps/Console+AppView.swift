import AccessEnabler
import Foundation

extension Console {
    /// An app as `GET /api/apps` shows it, with its sign-in judged on the storage it reads now (``SignInState``).
    ///
    /// The Flows page reloads the apps on every live event, a storage write of another app included, so a card
    /// follows its storage domain (a logout in News turns Sports One's card to signed out).
    func view(of app: ConsoleApp) -> AppView {
        var view = app.view
        // A stopped app on a device that has no profile yet has no device ID: judging it would create the profile,
        // which is the first app start's job (it picks the platform).
        guard view.deviceID != nil || ((try? app.device.folder.deviceProfile.read()) ?? nil) != nil,
            let known = app.known
        else {
            return view
        }
        let now = configuration.now()
        do {
            let domain = try StorageDomain.of(app.spec.app, on: app.device)
            do {
                let storage = try domain.store.load()
                view.signIn = SignInState.judge(
                    storage: storage, requestorID: app.spec.requestorID,
                    configuration: catalog.requestors[app.spec.requestorID], held: app.authenticationContext(now: now),
                    deviceID: known.deviceID, now: now, lastAnswer: view.authenticated)
            } catch {
                view.signIn = SignInState(
                    state: .signedOut,
                    text: domain.unreadable(error) + ". The SDK treats it as empty, so the app is not signed in.")
            }
        } catch {
            view.signIn = SignInState(state: .signedOut, text: "The app's storage cannot be found: \(error).")
        }
        return view
    }
}
