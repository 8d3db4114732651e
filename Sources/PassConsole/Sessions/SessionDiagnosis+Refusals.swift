import AccessEnabler
import Foundation
import PassProtocol

/// Failed authorizations, named by the side and rule that refused them (``Refusal``).
extension SessionDiagnosis {
    /// The SDK cleared a token because the backend refused it: which backend check, read from the recorded
    /// `Authzf-Error-Code`. A server session that ended (revoked, signed out elsewhere) is told apart from a token the
    /// service does not accept for this Programmer (an SSO copy of another Programmer's token whose MVPD binds tokens to
    /// their Programmer, ``RequestorBinding``).
    static func serverRefusedToken(
        _ refusal: Refusal?, at event: EntitlementEvent, change: String, ssoCopy: (source: String, mvpd: String)?
    ) -> Verdict {
        let when = HealthCard.clock(event.timestamp)
        let requestor = event.requestorID ?? "this Programmer"
        let cleared = " The SDK cleared the tokens (\(change)); the user must sign in again in this app."
        guard let refusal, refusal.side == .backend else {
            // Recorded without the exchange (an older SDK's events): all that is known is the SDK's own words.
            return Verdict(
                id: "server_refused_token", title: "Signed in here, but the service refused the token",
                text: "At \(when) the backend refused a token that looked valid on the device." + cleared,
                severity: "warning", side: .backend, rule: "token refused")
        }
        switch refusal.code {
        case RequestorBinding.rejectionCode:
            let origin =
                ssoCopy.map { copy in
                    " The token came to \(requestor) from \(copy.source) by the SDK's silent single sign-on (an SSO copy of the "
                        + "\(copy.mvpd) token): the SDK counted it, but the service now treats \(copy.mvpd) as signing in per "
                        + "Programmer (authentication per requestor, switched on after \(requestor)'s setRequestor read its "
                        + "configuration), and accepts such a token only from the Programmer it was issued to. The SDK stops "
                        + "copying it; \(requestor)'s next setRequestor reads the new configuration (passive authentication, "
                        + "where \(copy.mvpd) allows it, gets a sign-in of its own)."
                } ?? ""
            return Verdict(
                id: "token_other_programmer", title: "The service refused a token issued to another Programmer",
                text: "At \(when): \(refusal.sentence)" + origin + cleared + " Not a logout and not the TV provider.",
                severity: "warning", side: .backend, rule: refusal.rule)
        case "session_revoked", "session_unknown":
            return Verdict(
                id: "server_session_gone", title: "Signed in here, but not on the server",
                text:
                    "At \(when): \(refusal.sentence) The session ended on the server (logout elsewhere, or revoked) while "
                    + "the token on the device still looked valid." + cleared, severity: "warning", side: .backend,
                rule: refusal.rule)
        default:
            return Verdict(
                id: "server_refused_token", title: "The service refused the token: \(refusal.rule)",
                text: "At \(when): \(refusal.sentence)" + cleared, severity: "warning", side: .backend,
                rule: refusal.rule)
        }
    }

    /// A `tokenRequestFailed`, named by what refused it; `nil` when the storage verdict of the same refusal says it
    /// already (a backend token check makes the SDK clear its tokens, see ``serverRefusedToken(_:at:change:ssoCopy:)``).
    static func authorizationFailed(
        _ resource: String, code: String, description: String?, refusal: Refusal?, signedOut: SignedOutCause,
        at date: Date
    ) -> Verdict? {
        let said = description.flatMap { $0.isEmpty ? nil : $0 }
        guard let refusal = refusal ?? recordedWithoutExchange(code: code, description: said) else {
            if code == ErrorCode.userNotAuthenticated.rawValue {
                return signedOut.verdict(at: date, what: "'\(resource)' failed with \(code)")
            }
            return Verdict(
                id: "authorization_failed", title: "'\(resource)' failed (\(code))",
                text: ErrorExplanation.words(for: code),
                severity: "error")
        }
        switch refusal.side {
        case .mvpd:
            return Verdict(
                id: "mvpd_denied", title: "The TV provider denied '\(resource)'",
                text: "\(refusal.sentence) The MVPD answered that the subscription does not include '\(resource)'"
                    + (said.map { ": “\($0)”" } ?? "") + ". Not a technical fault: the package lacks the channel.",
                severity: "warning", side: .mvpd, rule: refusal.rule)
        case .network:
            return Verdict(
                id: "network_failure", title: "Network or service failure for '\(resource)'",
                text: "\(refusal.sentence) The authorization service could not be reached or answered badly"
                    + (said.map { ": \($0)" } ?? "") + ". Not a subscription problem; retry.",
                severity: "error", side: .network, rule: refusal.rule)
        case .backend where refusal.rule == "throttled":
            return Verdict(
                id: "throttled", title: "Requests were throttled",
                text:
                    "\(refusal.sentence) The service answered 429 (too many requests) for '\(resource)'; retry later.",
                severity: "error", side: .backend, rule: refusal.rule)
        case .backend:
            return nil
        case .sdkStorage:
            return signedOut.verdict(at: date, what: "'\(resource)' failed with \(code)")
        case .sdk, .platform:
            return nil  // never the side of an exchange's refusal
        }
    }

    /// The side of a failure whose exchange was not recorded (events ingested from an SDK that records none): only the
    /// delegate code is known, so the side is the one that code always stands for.
    static func recordedWithoutExchange(code: String, description: String?) -> Refusal? {
        switch code {
        case ErrorCode.userNotAuthorized.rawValue:
            Refusal(side: .mvpd, rule: "denied the resource", code: nil, detail: description.map { "“\($0)”" } ?? "")
        case ErrorCode.genericAuthorization.rawValue, ErrorCode.internalAuthorization.rawValue:
            (description ?? "").contains("429")
                ? Refusal(side: .backend, rule: "throttled", code: "HTTP 429", detail: "")
                : Refusal(side: .network, rule: "service unreachable or failing", code: nil, detail: description ?? "")
        default: nil
        }
    }
}
