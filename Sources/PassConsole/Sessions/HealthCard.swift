import AccessEnabler
import Foundation
import PassHistory
import PassProtocol

/// A session's health in plain language, for support staff: who is signed in with which MVPD until when, which
/// authorizations are alive, whether the device ID matches, and what went wrong, each error code explained.
struct HealthCard: Encodable, Sendable {
    struct Verdict: Encodable, Sendable, Equatable {
        var id: String
        var title: String
        var text: String
        /// `info`, `warning`, `error`.
        var severity: String
        /// For a refusal, the side that refused (``Refusal/Side``: SDK storage rule, backend check, MVPD decision,
        /// network); `nil` for a finding that is not a refusal (a stuck login, a wrong clock).
        var side: Refusal.Side? = nil
        /// The rule that refused, as a short name (`token issued to another Programmer`).
        var rule: String? = nil
    }

    /// One sentence (`Signed in with Cablevision for REF30 until 14:32 (3 h 12 min left).`).
    var headline: String
    /// More sentences, one fact each.
    var lines: [String]
    /// Named diagnoses of what happened (``SessionDiagnosis``).
    var verdicts: [Verdict]

    /// The card for `session`, from its events and the storage its app reads now.
    /// - Parameters:
    ///   - neighbours: storage changes other apps made to the storage this session reads (see
    ///     ``SessionDiagnosis/diagnose(events:session:now:regcodes:neighbours:stored:)``).
    ///   - signIn: the app's sign-in judged on its storage by the SDK's rules and the service's (``SignInState``), for
    ///     the console's own apps: a token the SDK counts but the service refuses is not "signed in".
    static func make(
        session: HistorySession, events: [EntitlementEvent], storage: StorageReport?, now: Date, regcodes: [String: RegcodeLife] = [:],
        neighbours: [EntitlementEvent] = [], appleLogoutBefore: EntitlementEvent? = nil, signIn: SignInState? = nil
    ) -> HealthCard {
        var lines: [String] = []
        let requestor = session.requestorID ?? "no Programmer yet"
        let domains = domains(of: session, in: storage)
        let programmer = domains.lazy.compactMap { $0.programmers.first { $0.requestorID == session.requestorID } }.first
        var headline = "\(session.bundleID) has no authentication for \(requestor) stored now."
        if let programmer, let cell = programmer.mvpds.first(where: { $0.mvpdID == programmer.selectedMvpd }) ?? programmer.mvpds.first,
            let authn = cell.authn
        {
            let until = authn.expires.map { Self.dateTime($0) } ?? "?"
            let left = authn.remainingSeconds ?? 0
            if authn.valid {
                headline = "Signed in with \(cell.mvpdID) for \(requestor) until \(until) (\(Duration.words(Double(left))) left)."
            } else {
                let failed = authn.verdicts.first { !$0.ok }
                headline = "The stored sign-in with \(cell.mvpdID) for \(requestor) does not count: \(Self.sentenceBody(failed?.text ?? "invalid"))."
            }
            for authz in cell.authz {
                let resource = authz.resource ?? "?"
                if authz.valid {
                    lines.append("'\(resource)' is authorized for \(Duration.words(Double(authz.remainingSeconds ?? 0))) more.")
                } else if let remaining = authz.remainingSeconds, remaining <= 0 {
                    lines.append("'\(resource)' authorization expired \(Duration.words(Double(-remaining))) ago; the next play needs one backend round trip.")
                } else {
                    lines.append("'\(resource)' authorization does not count: \(authz.verdicts.first { !$0.ok }?.text ?? "invalid").")
                }
            }
            if let device = authn.verdicts.first(where: { $0.rule == "device" }) {
                lines.append(device.ok ? "The device ID matches the token." : device.text)
            }
        }
        if let signIn, signIn.state == .deviceOnly { headline = signIn.text }
        if session.client.sdkPlatform == nil { headline = ServedDiagnosis.headline(events, session: session) }
        if let status = events.last(where: { if case .callback(.setAuthenticationStatus) = $0.kind { true } else { false } }),
            case .callback(.setAuthenticationStatus(let value, let code)) = status.kind
        {
            lines.append("Last authentication answer at \(clock(status.timestamp)): status \(value)"
                + (code.flatMap { $0.isEmpty ? nil : " (\($0): \(ErrorExplanation.words(for: $0)))" } ?? "") + ".")
        }
        if let offset = ClockOffset.measure(events) { lines.append(offset.sentence) }
        let recent = Array(events.suffix(500))
        for (index, event) in recent.enumerated() {
            if case .callback(.tokenRequestFailed(let resource, let code, let description)) = event.kind {
                // The side and rule come from the exchange that failed, not from the delegate code alone.
                if let refusal = recent.refusal(before: index) {
                    lines.append("At \(clock(event.timestamp)) '\(resource)' failed with \(code). \(refusal.sentence)")
                } else {
                    lines.append("At \(clock(event.timestamp)) '\(resource)' failed with \(code): \(ErrorExplanation.words(for: code))"
                        + (description.flatMap { $0.isEmpty ? nil : " The SDK said: “\($0)”." } ?? ""))
                }
            }
        }
        let stored = programmer.flatMap { p in (p.mvpds.first { $0.mvpdID == p.selectedMvpd } ?? p.mvpds.first)?.authn }
        var verdicts = SessionDiagnosis.diagnose(events: events, session: session, now: now, regcodes: regcodes,
            neighbours: neighbours, stored: stored, appleLogoutBefore: appleLogoutBefore)
        // What the backend or a proxy recorded (a browser, a REST box, a real app; or a sign-in change of an SDK app).
        verdicts += ServedDiagnosis.verdicts(events)
        if let stale = signIn?.stale {
            // Field problem #17: the app keeps its own idea of "signed in"; not a refusal, the app's integration.
            verdicts.append(Verdict(id: "app_state_stale", title: "The app's sign-in state is stale",
                text: "\(signIn?.text ?? "") \(stale) Apps should call setRequestor again when they come to the foreground.",
                severity: "warning"))
        }
        return HealthCard(headline: headline, lines: lines, verdicts: verdicts)
    }

    /// The storage domains `session`'s app reads: its team's shared storage (iOS) or its own (tvOS).
    static func domains(of session: HistorySession, in storage: StorageReport?) -> [StorageReport.Domain] {
        storage?.domains.filter { domain in
            domain.kind == (session.platform == .iOS ? .team : .app)
                && domain.owner == (session.platform == .iOS ? session.teamID : session.bundleID)
        } ?? []
    }

    /// `2026-11-24 14:32 UTC`.
    static func dateTime(_ date: Date) -> String {
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d UTC", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
            parts.hour ?? 0, parts.minute ?? 0)
    }

    /// `14:32:05 UTC`.
    static func clock(_ date: Date) -> String {
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        return String(format: "%02d:%02d:%02d UTC", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }
}

/// The delegate error codes of the seeds, in words a support person can act on.
enum ErrorExplanation {
    static func words(for code: String) -> String {
        switch code {
        case "User Not Authenticated Error": "no valid sign-in is stored; the user must sign in with their TV provider."
        case "User Not Authorized Error": "the TV provider says this subscription does not include the content."
        case "Generic Authentication Error", "Internal Authentication Error":
            "the sign-in failed on the service's side; retry, and if it repeats check the network log."
        case "Generic Authorization Error", "Internal Authorization Error":
            "the authorization service could not be reached or answered badly; this is not about the subscription."
        case "Provider Not Selected Error": "the user closed the provider picker or the login page without signing in."
        case "Provider Not Available Error": "the chosen TV provider is not offered for this channel."
        default:
            if let advanced = AdvancedStatusCode(id: code) { advanced.explanation } else { "see the network log for the backend's answer." }
        }
    }
}

extension HealthCard {
    /// `text` without its closing full stop, to end a sentence of ours ("…000Z).." read twice in the card).
    static func sentenceBody(_ text: String) -> String {
        var body = text.trimmingCharacters(in: .whitespaces)
        while body.hasSuffix(".") { body.removeLast() }
        return body
    }
}
