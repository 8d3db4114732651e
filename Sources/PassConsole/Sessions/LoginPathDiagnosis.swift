import AccessEnabler
import Foundation
import PassProtocol

/// How the user got to (or past) the sign-in, read from the session's events: the Apple dialog and why it fell back to
/// the SDK's picker (field problem #20), a logout that Apple SSO outlives (#19), an MVPD that needs
/// SFSafariViewController the app did not present or returned from to the wrong scheme (#4), and a token fetched
/// before the server recorded the login (#33, `N130`). Pure: events in, verdicts out; every sentence names the side
/// and the rule (``Refusal/Side``).
enum LoginPathDiagnosis {
    typealias Verdict = HealthCard.Verdict

    /// The advanced status code of a `status` callback (`errorId`, the SDK's key; `id`; and the spellings of other
    /// SDKs' recordings).
    static func statusCode(_ dictionary: [String: String]) -> String? {
        dictionary["errorId"] ?? dictionary["id"] ?? dictionary["status"] ?? dictionary["code"]
    }

    /// The statuses that explain why the Apple dialog gave way to the SDK's picker.
    static let fallbackCodes: Set<String> = ["N003", "N004", "VSA403", "VSA404", "VSA503", "AAPL", "AAPL_ERROR", "APPL", "APPL_ERROR"]

    /// - Parameter appleLogoutBefore: the device's last `VSA203` before this session (an earlier run of the app).
    static func verdicts(_ events: [EntitlementEvent], appleLogoutBefore: EntitlementEvent? = nil) -> [Verdict] {
        var verdicts: [Verdict] = []
        var handleSVC = false
        var reportedSVC = false
        /// The Apple dialog on screen: when it opened, whether the SDK dismissed it, the status that explained why.
        var dialog: (opened: Date, dismissed: Bool, status: [String: String]?)?
        var appleLogout: (at: Date, mvpd: String?, earlierRun: Bool)? = appleLogoutBefore.map { ($0.timestamp, $0.mvpdID, true) }
        var appleMvpd: String?
        for (index, event) in events.enumerated() {
            let when = HealthCard.clock(event.timestamp)
            switch event.kind {
            case .apiCall(.setOptions, let arguments):
                if let value = arguments["handleSVC"] { handleSVC = value.lowercased() == "true" }
            case .callback(.presentTvProviderDialog):
                dialog = (event.timestamp, false, nil)
            case .callback(.dismissTvProviderDialog):
                dialog?.dismissed = true
            case .callback(.displayProviderDialog):
                if let open = dialog, open.dismissed {
                    verdicts.append(fallback(open.status, at: when, requestor: event.requestorID))
                }
                dialog = nil
            case .callback(.setAuthenticationStatus(1, _)):
                if let open = dialog, !open.dismissed {
                    appleMvpd = event.mvpdID ?? appleMvpd
                    if let logout = appleLogout {
                        verdicts.append(signedInAgain(at: when, logout: logout, mvpd: event.mvpdID))
                        appleLogout = nil
                    }
                }
                dialog = nil
            case .callback(.setAuthenticationStatus(0, _)):
                dialog = nil
            case .callback(.navigateToUrl(_, let useSVC)):
                // A login page after the dialog (a provider picked without a device sign-in): not a silent sign-in.
                dialog = nil
                if useSVC == true, !handleSVC, !reportedSVC {
                    reportedSVC = true
                    verdicts.append(svcNotPresented(at: when, mvpd: event.mvpdID))
                }
            case .error(let code, let message) where code == "redirect_mismatch":
                verdicts.append(Verdict(
                    id: "svc_wrong_scheme", title: "The app returned from the login to the wrong URL",
                    text: "At \(when): SDK rule “the login ends at its own redirect URL”: \(message) The SDK fetched no "
                        + "token and the sign-in failed. Fix in the app: register its custom scheme and hand the SDK the URL "
                        + "SFSafariViewController ends at.", severity: "error", side: .sdk, rule: "redirect must match the login"))
            case .callback(.status(let dictionary)):
                guard let code = statusCode(dictionary) else { break }
                if code == "REGCODE" { dialog = nil }  // tvOS flow E: the sign-in is a second screen's, not silent
                switch code {
                case let fallback where dialog != nil && fallbackCodes.contains(fallback):
                    dialog?.status = dictionary
                case let cancel where cancel == "N005" && dialog != nil:
                    verdicts.append(Verdict(
                        id: "apple_sso_cancelled", title: "The user closed the Apple TV provider dialog",
                        text: "At \(when) the user cancelled the Apple dialog (N005): authentication ended with Provider Not "
                            + "Selected Error. Not a fault.", severity: "info", side: .platform, rule: "dialog cancelled"))
                case "VSA203":
                    appleLogout = (event.timestamp, appleMvpd ?? event.mvpdID, false)
                    verdicts.append(Verdict(
                        id: "apple_sso_logout", title: "Logged out of the app, still signed in to the TV provider",
                        text: "At \(when) the app logged out, but the sign-in came from Apple single sign-on (VSA203): the "
                            + "device stays signed in" + ((appleMvpd ?? event.mvpdID).map { " to \($0)" } ?? "")
                            + " in Settings → TV Provider, so the next sign-in or launch signs in again without asking. "
                            + "By design: the user must also sign out in Settings → TV Provider.", severity: "info",
                        side: .platform, rule: "Apple SSO outlives the app's logout"))
                case "N130":
                    verdicts.append(tokenNotOnSession(events.refusal(before: index), at: when, mvpd: event.mvpdID))
                case let other where other.hasPrefix("VSA") || other.hasPrefix("AAPL") || other.hasPrefix("APPL"):
                    verdicts.append(Verdict(
                        id: "apple_sso", title: "Apple single sign-on: \(other)",
                        text: "At \(when): \(ErrorExplanation.words(for: other))", severity: "info", side: .platform,
                        rule: other))
                default: break
                }
            default: break
            }
        }
        return verdicts
    }

    /// Field problem #20: the Apple dialog closed and the SDK's own picker followed, with the exact reason.
    static func fallback(_ status: [String: String]?, at when: String, requestor: String?) -> Verdict {
        let code = status.flatMap(statusCode)
        let programmer = requestor ?? "this Programmer"
        let (rule, reason): (String, String) =
            switch code {
            case "N003": ("Other TV Provider chosen", "the user picked “Other TV Provider” in the Apple dialog (N003)")
            case "N004":
                ("provider not enabled for SSO",
                    "the user picked a provider \(programmer) does not offer for Apple single sign-on (N004: not "
                        + "integrated, or its Apple SSO flag is off)" + (status?["message"].map { ": \($0)" } ?? ""))
            case "VSA403": ("TV Provider permission denied", "the user denied this app access to the TV provider (VSA403)")
            case "VSA404": ("TV Provider permission undetermined", "the app has no TV provider permission yet (VSA404)")
            case "VSA503": ("platform metadata failed", "the TV provider's account request failed (VSA503)")
            case let failure?:
                ("platform failure", "the platform failed (\(failure)" + (status?["details"].map { ": \($0)" } ?? "") + ")")
            case nil:
                ("no TV provider account",
                    "the device is not signed in to any TV provider (Settings → TV Provider), so Apple had no sign-in to "
                        + "hand over")
            }
        return Verdict(
            id: "apple_sso_fallback", title: "Apple single sign-on fell back to the provider list",
            text: "At \(when) the Apple TV provider dialog closed and the SDK showed its own provider list: Apple TV "
                + "Provider “\(rule)”: \(reason). By design, not a fault: the user signs in with the provider's page.",
            severity: "info", side: .platform, rule: rule)
    }

    /// Field problem #19: after a logout under Apple SSO, a sign-in through the Apple dialog without a login page.
    static func signedInAgain(at when: String, logout: (at: Date, mvpd: String?, earlierRun: Bool), mvpd: String?) -> Verdict {
        Verdict(
            id: "apple_sso_signed_in_again", title: "Signed in again through Apple SSO after logging out",
            text: "At \(when) getAuthentication signed in again through the Apple TV provider dialog, with no provider list "
                + "and no login page, after the logout at \(HealthCard.clock(logout.at))"
                + (logout.earlierRun ? " in an earlier run of the app" : "") + " (VSA203): Apple TV Provider "
                + "“Apple SSO session still active in Settings”" + ((mvpd ?? logout.mvpd).map { " with \($0)" } ?? "")
                + ". The app's logout cannot end it: the user must sign out in Settings → TV Provider.",
            severity: "warning", side: .platform, rule: "Apple SSO session still active in Settings")
    }

    /// Field problem #4: the MVPD requires SFSafariViewController and the app showed its login in the embedded web view.
    static func svcNotPresented(at when: String, mvpd: String?) -> Verdict {
        let name = mvpd ?? "The MVPD"
        return Verdict(
            id: "svc_not_presented", title: "\(name) requires SFSafariViewController, the app did not present it",
            text: "At \(when): MVPD decision “requires SFSafariViewController” (useSVC): \(name) accepts sign-ins only in "
                + "Safari, and refuses embedded web views (“browser not supported”). The app did not set the handleSVC "
                + "option, so the SDK called navigateToUrl: and the login page opened in the app's web view: the user is "
                + "stuck on that page. Fix in the app: setOptions([\"handleSVC\": \"true\"]), implement "
                + "navigateToUrl:useSVC: to present SFSafariViewController, and hand its custom-scheme redirect "
                + "(adbe.…://adobe.com) to handleExternalURL.", severity: "error", side: .mvpd,
            rule: "requires SFSafariViewController")
    }

    /// Field problem #33: the SDK asked for the token before the server had the login (`sessionDevice` → no session).
    static func tokenNotOnSession(_ refusal: Refusal?, at when: String, mvpd: String?) -> Verdict {
        let check = refusal.map { "\($0.sentence) " } ?? "Backend check “no server session for this token”. "
        return Verdict(
            id: "token_not_on_session", title: "Login finished at the MVPD, but the token was fetched before it",
            text: "At \(when) (N130): \(check)The SDK fetched the sign-in (sessionDevice) for this device"
                + (mvpd.map { " with \($0)" } ?? "") + " but the server had no finished login for it: the app called "
                + "handleExternalURL before the MVPD's login page had ended (or the login ran for another device). The "
                + "app said sign-in failed even if the user then finished signing in at the MVPD. Fix in the app: call "
                + "handleExternalURL only when the web view reaches the redirect URL; the user can sign in again.",
            severity: "error", side: .backend, rule: refusal?.rule ?? "no server session for this token")
    }
}
