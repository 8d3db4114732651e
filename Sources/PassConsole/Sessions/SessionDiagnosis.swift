import AccessEnabler
import Foundation
import PassProtocol
import PassHistory

/// Names, in words, the field problems support staff meet most (../shared/research/field-problems.md, "the ten
/// that matter most") when a session's events show them. Pure: events in, verdicts out.
enum SessionDiagnosis {
    typealias Verdict = HealthCard.Verdict

    /// How long a login page may stay open before the console calls the login stuck.
    static let stuckLoginAfter: TimeInterval = 120

    /// - Parameters:
    ///   - regcodes: the backend's record of each registration code the session's TV showed, when known.
    ///   - neighbours: storage changes other apps made, since this session started, to the storage it reads (a
    ///     logout in News clears Sports One's sign-in on the same phone).
    ///   - stored: the session's Programmer's authentication token as the storage holds it now, judged.
    ///   - appleLogoutBefore: the device's last logout under Apple SSO (`VSA203`) before this session, if any.
    static func diagnose(
        events: [EntitlementEvent], session: HistorySession, now: Date = Date(), regcodes lives: [String: RegcodeLife] = [:],
        neighbours: [EntitlementEvent] = [], stored: TokenReport? = nil, appleLogoutBefore: EntitlementEvent? = nil
    ) -> [Verdict] {
        var verdicts: [Verdict] = []
        var loginOpenedAt: Date?
        var externalURLCalls = 0
        var ssoCopy: (source: String, mvpd: String)?
        let signedOut = SignedOutCause(session: session, neighbours: neighbours, stored: stored)
        for (index, event) in events.enumerated() {
            signedOut.note(event)
            switch event.kind {
            case .storageChanged(_, let change) where change.hasPrefix("sanitizer removed"):
                verdicts.append(Verdict(id: "device_id_changed", title: "Device ID changed",
                    text: "SDK storage rule “device ID mismatch”: at \(HealthCard.clock(event.timestamp)) the SDK's token sanitizer "
                        + "removed tokens bound to another device ID (\(change)). Either the app was reinstalled or another app of "
                        + "the team with a different bundle-ID prefix signed in: the user must sign in again. This is expected, not "
                        + "a fault.", severity: "warning", side: .sdkStorage, rule: "device ID mismatch"))
            case .storageChanged(_, let change) where change.hasPrefix("SSO copy of the "):
                // "SSO copy of the Dish token of REF30"
                let words = change.dropFirst("SSO copy of the ".count).components(separatedBy: " token of ")
                if words.count == 2 { ssoCopy = (words[1], words[0]) }
            case .storageChanged(_, let change) where change.contains("refused by the server"):
                verdicts.append(serverRefusedToken(events.refusal(before: index), at: event, change: change, ssoCopy: ssoCopy))
            case .storageChanged(_, let change) where change.hasPrefix("logout"):
                verdicts.append(Verdict(id: "logged_out_by_app", title: "Logged out by the app",
                    text: "SDK storage rule “logout clears the storage”: at \(HealthCard.clock(event.timestamp)) \(event.app.bundleID) "
                        + "called logout, which clears the sign-in of every Programmer and MVPD on this storage.", severity: "info",
                    side: .sdkStorage, rule: "logout clears the storage"))
            case .callback(.tokenRequestFailed(let resource, let code, let description)):
                if let verdict = authorizationFailed(resource, code: code, description: description,
                    refusal: events.refusal(before: index), signedOut: signedOut, at: event.timestamp)
                {
                    verdicts.append(verdict)
                }
            case .callback(.setAuthenticationStatus(0, _)):
                loginOpenedAt = nil
                if let verdict = signedOut.verdict(at: event.timestamp, what: "checkAuthentication answered 0") { verdicts.append(verdict) }
            case .callback(.navigateToUrl):
                loginOpenedAt = event.timestamp
                externalURLCalls = 0
            case .apiCall(.getAuthentication, _) where loginOpenedAt != nil:
                verdicts.append(Verdict(id: "login_never_cancelled", title: "Previous login never cancelled",
                    text: "getAuthentication was called again while the login page opened at "
                        + "\(HealthCard.clock(loginOpenedAt!)) was still pending; the app must call setSelectedProvider(nil) "
                        + "when the user closes the login view.", severity: "warning"))
            case .apiCall(.handleExternalURL, _):
                externalURLCalls += 1
                if externalURLCalls == 2 {
                    verdicts.append(Verdict(id: "completion_twice", title: "Login completion called twice",
                        text: "handleExternalURL was called twice for one login at \(HealthCard.clock(event.timestamp)); "
                            + "the app hands the redirect to the SDK twice (results are undefined per Adobe).", severity: "warning"))
                }
                loginOpenedAt = nil
            case .callback(.setAuthenticationStatus):
                loginOpenedAt = nil
            default: break
            }
        }
        // Apple SSO, SFSafariViewController and N130 (field problems #4, #19, #20, #33).
        verdicts += LoginPathDiagnosis.verdicts(events, appleLogoutBefore: appleLogoutBefore)
        verdicts += signedOut.neighbourVerdicts()
        if let opened = loginOpenedAt, now.timeIntervalSince(opened) > stuckLoginAfter {
            verdicts.append(Verdict(id: "stuck_login", title: "Stuck on the login page",
                text: "The MVPD login page opened at \(HealthCard.clock(opened)) never came back to the app "
                    + "(\(Duration.words(now.timeIntervalSince(opened))) ago). If the network log shows the backend redirected to "
                    + "the app's redirect URL (adobepass://ios.app, or its adbe.…:// scheme for an MVPD shown in "
                    + "SFSafariViewController), the app did not intercept the redirect; otherwise the user never finished.",
                severity: "error"))
        }
        if let offset = ClockOffset.measure(events), offset.isWrong {
            verdicts.append(Verdict(id: "clock_offset", title: "Device clock off by \(offset.magnitude)",
                text: offset.sentence + " The SDK judges token lifetimes by the device's clock, so sign-ins and "
                    + "authorizations can look expired early or alive too long, and the player's server may refuse short "
                    + "media tokens as expired. Not a provider problem: set the device's date and time to automatic.",
                severity: "error"))
        }
        for code in SecondScreenCode.codes(in: events) {
            verdicts.append(SecondScreenCode.verdict(code: code, events: events, life: lives[code], now: now))
        }
        return verdicts
    }
}
