import AccessEnabler
import Foundation
import PassProtocol

/// What REST API v2 answers say, for the health card: an enhanced error (top-level, or inside one decision of an
/// answer of 200) named by its code, with the vendor's recommended action in words, and permits that did not come from
/// the MVPD — degraded access and TempPass — named as such.
enum V2Diagnosis {
    typealias Verdict = HealthCard.Verdict

    /// The verdict of one recorded v2 exchange, or nil when it says nothing worth a card's line.
    static func verdict(_ exchange: HTTPExchange, when: String, operation: String) -> Verdict? {
        guard exchange.url.hasPathPrefix("/api/v2/"), let body = exchange.responseBody, let data = body.data(using: .utf8) else { return nil }
        let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        if let status = exchange.status, status >= 400 {
            guard let json, let error = enhanced(json) else { return nil }
            return verdict(error, when: when, operation: operation, resource: nil)
        }
        // Item-level: the decisions of an answer of 200 (a token may have been cut from the stored body: read what is left).
        if let decisions = json?["decisions"] as? [[String: Any]] {
            for decision in decisions where decision["authorized"] as? Bool == false {
                if let error = (decision["error"] as? [String: Any]).flatMap(enhanced) {
                    return verdict(error, when: when, operation: operation, resource: decision["resource"] as? String)
                }
            }
        }
        if body.contains("\"source\":\"degradation\"") {
            return Verdict(
                id: "v2_degraded", title: "Degraded access: a rule decided instead of the TV provider",
                text: "At \(when) \(operation) was answered by a degradation rule (source: degradation), not by the TV provider: "
                    + "the provider's authentication or authorization is bypassed while it is down.",
                severity: "info", side: .backend, rule: "degradation rule")
        }
        if body.contains("\"source\":\"temppass\"") {
            return Verdict(
                id: "v2_temppass", title: "Temporary access (TempPass)",
                text: "At \(when) \(operation) was permitted by TempPass, without a TV provider sign-in; it ends after its time or "
                    + "its number of resources.", severity: "info", side: .backend, rule: "TempPass")
        }
        return nil
    }

    static func enhanced(_ json: [String: Any]) -> EnhancedError? {
        guard let code = json["code"] as? String, let status = json["status"] as? Int else { return nil }
        var error = EnhancedError(.internalServerError, details: json["details"] as? String, trace: json["trace"] as? String)
        error.code = code
        error.status = status
        error.message = json["message"] as? String ?? ""
        error.action = json["action"] as? String ?? "none"
        return error
    }

    static func verdict(_ error: EnhancedError, when: String, operation: String, resource: String?) -> Verdict {
        let action = EnhancedError.Action(rawValue: error.action)?.words ?? error.action
        let side: Refusal.Side = error.code.contains("denied_by_mvpd") || error.code.hasPrefix("identity_not_recognized")
            ? .mvpd : error.code.hasPrefix("network_") ? .network : .backend
        let about = resource.map { " for \($0)" } ?? ""
        return Verdict(
            id: "v2_error", title: "\(operation)\(about): \(error.code)",
            text: "At \(when) the service answered \(error.code) (\(error.status))\(about): \(error.message)"
                + (error.details.map { " “\($0)”" } ?? "") + " What to do: \(action).",
            severity: side == .mvpd ? "warning" : "error", side: side, rule: error.code)
    }
}
