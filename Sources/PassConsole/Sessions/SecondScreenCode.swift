import AccessEnabler
import Foundation
import PassProtocol

/// A TV's registration code told whole (field problem #34): when it was made and expires, how often the TV asked
/// whether it was signed in, every attempt to use the code on a second screen (from the backend's log), and — when
/// it never activated — why. Pure: events and the backend's record in, a verdict out.
enum SecondScreenCode {
    typealias Verdict = HealthCard.Verdict

    /// The codes a session's TV showed, in order.
    static func codes(in events: [EntitlementEvent]) -> [String] {
        var codes: [String] = []
        for event in events {
            if case .stateChanged(.authentication, _, .polling(_, let code)) = event.kind, !codes.contains(code) {
                codes.append(code)
            }
        }
        return codes
    }

    /// The verdict for `code`, with the backend's `life` of it when it could be read.
    static func verdict(code: String, events: [EntitlementEvent], life: RegcodeLife?, now: Date) -> Verdict {
        let polls = events.filter { event in
            if case .httpExchange(let exchange) = event.kind { exchange.url.contains("/api/v1/tokens/authn") } else { false }
        }
        let signedIn = events.contains { if case .callback(.setAuthenticationStatus(1, _)) = $0.kind { true } else { false } }
        var facts: [String] = []
        if let life {
            let left = life.expires.timeIntervalSince(now)
            facts.append("Made at \(HealthCard.clock(life.created)), valid until \(HealthCard.clock(life.expires))"
                + (left > 0 ? " (\(Duration.words(left)) left)." : " (expired \(Duration.words(-left)) ago)."))
        }
        if let last = polls.last, case .httpExchange(let exchange) = last.kind {
            let answer = exchange.status.map { $0 == 200 ? "signed in" : "\($0), not signed in yet" } ?? "no answer"
            facts.append("The TV asked \(polls.count) time\(polls.count == 1 ? "" : "s") whether it was signed in "
                + "(last at \(HealthCard.clock(last.timestamp)): \(answer)).")
        }
        if let life, !life.attempts.isEmpty {
            let listed = life.attempts.suffix(5).map { attempt in
                "\(HealthCard.clock(attempt.at)) \(attempt.via)"
                    + (attempt.requestorID.map { " for \($0)" } ?? "") + (attempt.mvpdID.map { " with \($0)" } ?? "")
                    + ": " + (attempt.outcome == "accepted" || attempt.outcome == "code_accepted" ? "accepted" : "refused — \(attempt.detail)")
            }
            facts.append("Second-screen attempts: " + listed.joined(separator: "; ") + ".")
        }
        if signedIn || life?.activated == true {
            return Verdict(id: "second_screen_code", title: "Code \(code) was activated",
                text: (["The TV showed \(code); it was activated on a second screen and the TV signed in."] + facts).joined(separator: " "),
                severity: "info")
        }
        guard let life else {
            return Verdict(id: "second_screen_code", title: "Code \(code) not activated yet",
                text: (["The TV showed \(code); it has not been activated. The backend's record of the code could not be read, "
                    + "so the attempts to use it are not known."] + facts).joined(separator: " "), severity: "info")
        }
        let expired = life.expires <= now
        let cause: String
        // Refused by the activation page: a backend check. Otherwise no side refused anything (a person stopped).
        var side: Refusal.Side?
        var rule: String?
        if let last = life.attempts.last {
            switch last.outcome {
            case "accepted":
                cause = "The sign-in with \(last.mvpdID ?? "the TV provider") started at \(HealthCard.clock(last.at)) but was never "
                    + "finished: the person did not complete the TV provider's login."
            case "code_accepted":
                cause = "Someone typed the code at \(HealthCard.clock(last.at)) but did not choose a TV provider."
            default:
                cause = "Backend check “activation refused” (\(last.outcome)): the last attempt (\(HealthCard.clock(last.at))) was "
                    + "refused: \(last.detail)"
                (side, rule) = (.backend, "activation refused")
            }
        } else {
            cause = "Nobody used the code: it was not typed on the activation page and no second screen opened the sign-in "
                + "link with it."
        }
        return Verdict(id: "second_screen_code_not_activated",
            title: "Code \(code) never activated" + (expired ? " (expired)" : ""),
            text: ([cause + (expired ? " The code expired at \(HealthCard.clock(life.expires)); the TV must show a new one." : "")]
                + facts).joined(separator: " "),
            severity: expired ? "error" : "warning", side: side, rule: rule)
    }
}
