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

    /// - Parameter regcodes: the backend's record of each registration code the session's TV showed, when known.
    static func diagnose(
        events: [EntitlementEvent], session: HistorySession, now: Date = Date(), regcodes lives: [String: RegcodeLife] = [:]
    ) -> [Verdict] {
        var verdicts: [Verdict] = []
        var loginOpenedAt: Date?
        var externalURLCalls = 0
        for event in events {
            switch event.kind {
            case .storageChanged(_, let change) where change.hasPrefix("sanitizer removed"):
                verdicts.append(Verdict(id: "device_id_changed", title: "Device ID changed",
                    text: "At \(HealthCard.clock(event.timestamp)) the SDK removed tokens bound to another device ID (\(change)). "
                        + "Either the app was reinstalled or another app of the team with a different bundle-ID prefix signed in: "
                        + "the user must sign in again. This is expected, not a fault.", severity: "warning"))
            case .storageChanged(_, let change) where change.contains("refused by the server"):
                verdicts.append(Verdict(id: "server_session_gone", title: "Signed in here, but not on the server",
                    text: "At \(HealthCard.clock(event.timestamp)) the backend refused a token that looked valid on the device "
                        + "(the session ended on the server, e.g. the TV provider logged the user out). The SDK cleared the "
                        + "tokens (\(change)); the user must sign in again.", severity: "warning"))
            case .storageChanged(_, let change) where change.hasPrefix("logout"):
                verdicts.append(Verdict(id: "logged_out_by_app", title: "Logged out by the app",
                    text: "At \(HealthCard.clock(event.timestamp)) \(event.app.bundleID) called logout, which clears the sign-in "
                        + "of every Programmer and MVPD on this storage.", severity: "info"))
            case .callback(.tokenRequestFailed(let resource, let code, let description)):
                let (id, title, text): (String, String, String) = switch code {
                case "User Not Authorized Error":
                    ("mvpd_denied", "The TV provider denied '\(resource)'",
                     "The MVPD answered that the subscription does not include '\(resource)'"
                        + (description.map { ": “\($0)”" } ?? "") + ". Not a technical fault: the package lacks the channel.")
                case "Generic Authorization Error" where (description ?? "").contains("429"):
                    ("throttled", "Requests were throttled", "The service answered 429 (too many requests) for '\(resource)'; retry later.")
                case "Generic Authorization Error", "Internal Authorization Error":
                    ("network_failure", "Network or service failure for '\(resource)'",
                     "The authorization service could not be reached or answered badly"
                        + (description.map { ": \($0)" } ?? "") + ". Not a subscription problem; retry.")
                default:
                    ("authorization_failed", "'\(resource)' failed (\(code))", ErrorExplanation.words(for: code))
                }
                verdicts.append(Verdict(id: id, title: title, text: text, severity: id == "mvpd_denied" ? "warning" : "error"))
            case .callback(.navigateToUrl):
                loginOpenedAt = event.timestamp
                externalURLCalls = 0
            case .apiCall("getAuthentication", _) where loginOpenedAt != nil:
                verdicts.append(Verdict(id: "login_never_cancelled", title: "Previous login never cancelled",
                    text: "getAuthentication was called again while the login page opened at "
                        + "\(HealthCard.clock(loginOpenedAt!)) was still pending; the app must call setSelectedProvider(nil) "
                        + "when the user closes the login view.", severity: "warning"))
            case .apiCall("handleExternalURL", _):
                externalURLCalls += 1
                if externalURLCalls == 2 {
                    verdicts.append(Verdict(id: "completion_twice", title: "Login completion called twice",
                        text: "handleExternalURL was called twice for one login at \(HealthCard.clock(event.timestamp)); "
                            + "the app hands the redirect to the SDK twice (results are undefined per Adobe).", severity: "warning"))
                }
                loginOpenedAt = nil
            case .callback(.setAuthenticationStatus):
                loginOpenedAt = nil
            case .callback(.status(let dictionary)):
                if let code = dictionary["status"] ?? dictionary["code"], code.hasPrefix("VSA") || code == "N003" || code == "N004" || code == "N005" {
                    verdicts.append(Verdict(id: "apple_sso", title: "Apple single sign-on: \(code)",
                        text: ErrorExplanation.words(for: code), severity: "info"))
                }
            default: break
            }
        }
        if let opened = loginOpenedAt, now.timeIntervalSince(opened) > stuckLoginAfter {
            verdicts.append(Verdict(id: "stuck_login", title: "Stuck on the login page",
                text: "The MVPD login page opened at \(HealthCard.clock(opened)) never came back to the app "
                    + "(\(Duration.words(now.timeIntervalSince(opened))) ago). If the network log shows the backend redirected to "
                    + "adobepass://ios.app, the app did not intercept the redirect; otherwise the user never finished.",
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
