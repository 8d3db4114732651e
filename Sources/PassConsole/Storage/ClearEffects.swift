import AccessEnabler
import Foundation

extension Console {
    /// What a clear of `scope` will really do to each of the console's apps that read that storage, in sentences the
    /// clear dialog shows before anything changes: which app loses its sign-in, and which one will copy another
    /// Programmer's sign-in straight back (silent single sign-on) or sign in again by passive authentication — so
    /// the clear will not sign it out. Judged as the Flows card judges (``SignInState``: the rules each app's SDK
    /// holds), on the storage before and after the clear.
    func clearEffects(_ scope: ClearScope) -> [String] {
        guard let domain = try? StorageDomain(id: scope.domain, devices: configuration.devices),
            let before = try? domain.store.load()
        else { return [] }
        var after = before
        _ = scope.apply(to: &after)
        guard after != before else { return [] }
        let now = configuration.now()
        var effects: [String] = []
        for app in apps {
            guard let known = app.known, (try? StorageDomain.of(app.spec.app, on: app.device))?.id == domain.id else { continue }
            let held = app.authenticationContext(now: now)
            func judge(_ storage: TokenStorage) -> SignInState {
                SignInState.judge(storage: storage, requestorID: app.spec.requestorID,
                    configuration: catalog.requestors[app.spec.requestorID], held: held, deviceID: known.deviceID, now: now,
                    lastAnswer: nil)
            }
            let (was, will) = (judge(before), judge(after))
            let counted: Set<SignInState.State> = [.signedIn, .deviceOnly]
            let name = app.spec.name
            if counted.contains(was.state), !counted.contains(will.state) {
                effects.append("\(name) loses its \(was.mvpd ?? "") sign-in: its next checkAuthentication answers 0."
                    + (will.mvpd != nil && will.text.contains("passive authentication")
                        ? " It signs in again by passive authentication at its next setRequestor (\(will.mvpd!))." : ""))
            } else if counted.contains(will.state), let source = will.copiedFrom, was.copiedFrom == nil {
                effects.append("\(name) stays signed in: its next checkAuthentication copies \(source)'s \(will.mvpd ?? "") sign-in "
                    + "straight back (silent single sign-on). To sign it out, clear \(source)'s \(will.mvpd ?? "") sign-in too.")
            }
        }
        return effects
    }
}
