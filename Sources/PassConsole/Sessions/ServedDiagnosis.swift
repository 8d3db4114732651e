import AccessEnabler
import Foundation
import PassHistory

/// Verdicts on what the backend (or a proxy) recorded of a client the console does not run — a browser, a REST box,
/// a real app — read from the served exchanges' facts (``ServedFacts``) with the same rules as an SDK session's: a
/// revocation is the TV provider signing the customer out, a refusal is named by its side and rule (``Refusal``), and
/// the registration's own failures (an expired code, a wrong client secret, an unknown software statement) in words.
enum ServedDiagnosis {
    typealias Verdict = HealthCard.Verdict

    /// One sentence for a session of a client the console does not run: who is signed in where, or who ended it.
    static func headline(_ events: [EntitlementEvent], session: HistorySession) -> String {
        let client = session.client.label
        let requestor = session.requestorID ?? "no Programmer yet"
        for event in events.reversed() {
            guard case .httpExchange(let exchange) = event.kind, let served = exchange.served else { continue }
            let who = served.username ?? "the customer"
            let mvpd = event.mvpdID ?? "the TV provider"
            switch served.change {
            case .revoked?: return "\(mvpd) signed \(who) out at \(HealthCard.clock(event.timestamp)) (revoked on the server); \(client) client of \(requestor)."
            case .loggedOut?: return "\(who) logged out at \(HealthCard.clock(event.timestamp)); \(client) client of \(requestor)."
            case .signedIn?: return "\(who) signed in with \(mvpd) for \(requestor) at \(HealthCard.clock(event.timestamp)); \(client) client."
            default: continue
            }
        }
        return "A \(client) client of \(requestor), not signed in as far as the service recorded."
    }

    static func verdicts(_ events: [EntitlementEvent]) -> [Verdict] {
        var verdicts: [Verdict] = []
        var revoked: (at: Date, who: String, mvpd: String, told: Bool)?
        var lastRefusal: Verdict?
        var lastNote: Verdict?
        for event in events {
            guard case .httpExchange(let exchange) = event.kind, let served = exchange.served else { continue }
            let when = HealthCard.clock(event.timestamp)
            let what = served.operation ?? exchange.method
            switch served.change {
            case .revoked?:
                revoked = (event.timestamp, served.username ?? served.userID ?? "the customer", event.mvpdID ?? "the TV provider", false)
                continue
            case .signedIn?:
                revoked = nil
                lastRefusal = nil
                lastNote = nil
            default: break
            }
            if served.pendingLogout == true, revoked != nil { revoked?.told = true }
            if let rule = served.rule {
                lastRefusal = Verdict(
                    id: "proxy_rule", title: "A proxy rule answered '\(what)'",
                    text: "At \(when) the recording proxy's rule “\(rule)” acted on \(what) (\(exchange.status.map { "status \($0)" } ?? "no answer")): "
                        + "the failure was made on purpose, not by the service.", severity: "warning", side: .network, rule: rule)
                continue
            }
            if let verdict = V2Diagnosis.verdict(exchange, when: when, operation: what) {
                // A permit by degradation or TempPass is worth knowing but is not a refusal: it does not hide one.
                if verdict.severity == "info" { lastNote = verdict } else { lastRefusal = verdict }
                continue
            }
            guard let status = exchange.status, status >= 400 else { continue }
            if let verdict = registration(exchange, served, when: when) {
                lastRefusal = verdict
            } else if let refusal = Refusal.of(exchange) {
                lastRefusal = Verdict(
                    id: "served_refusal", title: "\(refusal.side.label): \(what) refused",
                    text: "At \(when): \(refusal.sentence)", severity: refusal.side == .mvpd ? "warning" : "error",
                    side: refusal.side, rule: refusal.rule)
            }
        }
        if let revoked {
            verdicts.append(Verdict(
                id: "revoked_by_provider", title: "Signed out by the TV provider",
                text: "At \(HealthCard.clock(revoked.at)) \(revoked.mvpd) ended \(revoked.who)'s sign-in on the server (revoked)"
                    + (revoked.told ? "; the client's next call was told so (pendingLogout)." : ".")
                    + " Not a fault of the app or the device: the customer signs in again.",
                severity: "warning", side: .mvpd, rule: "sign-in revoked"))
        }
        if let lastRefusal { verdicts.append(lastRefusal) }
        if let lastNote { verdicts.append(lastNote) }
        return verdicts
    }

    /// The registration's own failures: an expired code, a wrong client secret, an unknown or revoked statement.
    static func registration(_ exchange: HTTPExchange, _ served: ServedFacts, when: String) -> Verdict? {
        let code = served.advancedStatus ?? ""
        if exchange.status == 410, let regcode = served.registrationCode {
            return Verdict(
                id: "regcode_expired", title: "The registration code \(regcode) had expired",
                text: "At \(when) the device used the code \(regcode) after it expired: it must ask for a new one and show it.",
                severity: "warning", side: .backend, rule: "registration code expired")
        }
        switch code {
        case "invalid_client":
            return Verdict(
                id: "wrong_client_secret", title: "Wrong client ID or secret",
                text: "At \(when) the app asked for an access token with a client ID or secret the service does not know: it must "
                    + "register again (POST /o/client/register) and keep the secret it gets.", severity: "error", side: .backend,
                rule: "wrong client secret")
        case "invalid_software_statement", "unapproved_software_statement", "unauthorized_client":
            return Verdict(
                id: "unknown_software_statement", title: "The app's software statement is not accepted",
                text: "At \(when) the service refused the app's software statement (\(code)): the statement is unknown or was "
                    + "revoked; the Programmer must issue a new one in the TVE Dashboard.", severity: "error", side: .backend,
                rule: "software statement refused")
        default: return nil
        }
    }
}
