import AccessEnabler
import Foundation
import PassHistory
import PassProtocol

/// "Why was I logged out?" (field problems #8, #16, #31): a session that was signed in and then is not, named by the
/// SDK storage rule that removed or voided its sign-in — another app's logout on the shared storage, the token's TTL,
/// the device binding — or, when nothing the SDK records explains it, a storage emptied from outside the SDK.
///
/// Fed the session's events in order (``note(_:)``); asked at each "not signed in" answer (``verdict(at:what:)``).
/// One verdict per cause.
final class SignedOutCause {
    typealias Verdict = HealthCard.Verdict

    private let session: HistorySession
    /// Other apps' storage changes on the storage this session reads, oldest first.
    private let neighbours: [EntitlementEvent]
    /// The session's Programmer's authN token as stored now, judged by the SDK's rules.
    private let stored: TokenReport?
    /// When the session last had a sign-in (an answer of 1, a media token, a token stored).
    private var signedInAt: Date?
    /// The session's own events that already explain a sign-out (logout, sanitizer, a refused token).
    private var explainedAt: Date?
    private var reported: Set<String> = []

    init(session: HistorySession, neighbours: [EntitlementEvent], stored: TokenReport?) {
        self.session = session
        self.neighbours = neighbours.filter { $0.sessionID != session.id }.sorted { $0.timestamp < $1.timestamp }
        self.stored = stored
    }

    /// Follows the session's own events.
    func note(_ event: EntitlementEvent) {
        switch event.kind {
        case .callback(.setAuthenticationStatus(1, _)), .callback(.setToken): signedInAt = event.timestamp
        case .storageChanged(_, let change)
        where change.hasPrefix("logout") || change.hasPrefix("sanitizer removed")
            || change.contains("refused by the server"):
            explainedAt = event.timestamp
        default: break
        }
    }

    /// The verdict for a "not signed in" answer at `date`, when the session had been signed in and nothing the
    /// session itself recorded (its own logout, the sanitizer, a refused token) already explains it.
    func verdict(at date: Date, what: String) -> Verdict? {
        guard let signedInAt, signedInAt < date else { return nil }
        if let explainedAt, explainedAt >= signedInAt { return nil }
        if neighbours.contains(where: { isLogout($0) && $0.timestamp >= signedInAt && $0.timestamp <= date }) {
            return nil  // named by neighbourVerdicts()
        }
        let when = HealthCard.clock(date)
        if let stored, let rule = stored.verdicts.first(where: { !$0.ok }) {
            let name =
                switch rule.rule {
                case "ttl": "TTL expired"
                case "device": "device ID mismatch"
                case "issuer": "issuer not allowed"
                case "version": "storage version"
                default: rule.rule
                }
            return once(
                Verdict(
                    id: rule.rule == "ttl" ? "ttl_expired" : "stored_token_void",
                    title: rule.rule == "ttl"
                        ? "Signed out: the \(stored.mvpdID) sign-in expired"
                        : "Signed out: the stored sign-in does not count",
                    text:
                        "SDK storage rule “\(name)”: at \(when) \(what) because the stored \(stored.mvpdID) token for "
                        + "\(stored.requestorID) does not count. \(rule.text)"
                        + (rule.rule == "ttl"
                            ? " The MVPD's authentication TTL ran out: not a logout and not a fault; sign in again."
                            : ""),
                    severity: "warning", side: .sdkStorage, rule: name))
        }
        return once(
            Verdict(
                id: "storage_wiped", title: "Signed out: the storage was emptied from outside the SDK",
                text:
                    "SDK storage rule “no valid authentication token”: at \(when) \(what), although this session was signed in at "
                    + "\(HealthCard.clock(signedInAt)). No logout, sanitizer run, expiry or refused token was recorded since, so the "
                    + "storage it reads was emptied from outside the SDK (the OS wiped it, or it was cleared in this console: see "
                    + "Audit). Sign in again.", severity: "warning", side: .sdkStorage,
                rule: "no valid authentication token"))
    }

    /// Another app's logout on the shared storage while this session ran: it signed this app out too.
    func neighbourVerdicts() -> [Verdict] {
        neighbours.filter(isLogout).compactMap { event in
            guard event.timestamp >= session.firstSeen else { return nil }
            return once(
                Verdict(
                    id: "logged_out_by_other_app", title: "Logged out by \(event.app.bundleID)",
                    text:
                        "SDK storage rule “logout clears the shared storage”: at \(HealthCard.clock(event.timestamp)) "
                        + "\(event.app.bundleID) called logout, which clears the sign-in of every Programmer and MVPD in the storage "
                        + "this app shares with it (\(Self.domain(of: event) ?? "the team's storage")). \(session.bundleID) is signed "
                        + "out too; it learns so at its next checkAuthentication or setRequestor. Expected, not a fault.",
                    severity: "info", side: .sdkStorage, rule: "logout clears the shared storage"),
                key: "\(event.timestamp)")
        }
    }

    private func isLogout(_ event: EntitlementEvent) -> Bool {
        if case .storageChanged(_, let change) = event.kind { change.hasPrefix("logout") } else { false }
    }

    private static func domain(of event: EntitlementEvent) -> String? {
        if case .storageChanged(let domain, _) = event.kind { domain } else { nil }
    }

    private func once(_ verdict: Verdict, key: String = "") -> Verdict? {
        reported.insert(verdict.id + key).inserted ? verdict : nil
    }
}
