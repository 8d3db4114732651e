import AccessEnabler
import Foundation
import PassProtocol

/// The delegate contract of the seeds and the spec (§1.3–1.8, §4), checked against what a session's app actually
/// received: each rule kept, broken (with the moment it broke) or not exercised by the session. Built in, so nobody
/// writes validation rules by hand; a broken rule points at an SDK defect or an app that misuses the SDK. Pure:
/// events in, results out.
enum CallbackContract {
    struct Rule: Encodable, Sendable, Equatable {
        var id: String
        /// The rule in words.
        var rule: String
        /// `kept`, `broken` or `unexercised`.
        var status: String
        /// How many times the session exercised it.
        var checked: Int
        /// What broke it, when it broke (the first few).
        var violations: [String]
    }

    /// Result callbacks: they answer a call, so none may arrive before `setRequestorComplete`.
    static func isResult(_ callback: EntitlementCallback) -> Bool {
        switch callback {
        case .setAuthenticationStatus, .setToken, .tokenRequestFailed, .preauthorizedResources, .setMetadataStatus,
            .displayProviderDialog, .navigateToUrl, .presentTvProviderDialog:
            true
        default: false
        }
    }

    /// The positions in `events` of the `setAuthenticationStatus` answers that end a logout. Calls queue: a check
    /// made just before a logout is answered after the logout call, so each logout's answer is the first status
    /// after the answers still owed to earlier authentication calls.
    static func logoutAnswers(_ events: [EntitlementEvent]) -> (answers: Set<Int>, unanswered: [EntitlementEvent]) {
        var owed = 0
        var open: [(call: EntitlementEvent, owedBefore: Int)] = []
        var answers: Set<Int> = []
        for (index, event) in events.enumerated() {
            switch event.kind {
            case .apiCall(.checkAuthentication, _), .apiCall(.getAuthentication, _): owed += 1
            case .apiCall(.logout, _): open.append((event, owed))
            case .callback(.setAuthenticationStatus):
                if var first = open.first {
                    if first.owedBefore > 0 {
                        first.owedBefore -= 1
                        open[0] = first
                        owed = max(0, owed - 1)
                    } else {
                        answers.insert(index)
                        open.removeFirst()
                    }
                } else {
                    owed = max(0, owed - 1)
                }
            default: break
            }
        }
        return (answers, open.map(\.call))
    }

    static func check(_ events: [EntitlementEvent]) -> [Rule] {
        let logout = logoutAnswers(events)
        var rules: [Rule] = []
        func rule(_ id: String, _ text: String, checked: Int, violations: [String]) {
            rules.append(Rule(id: id, rule: text, status: checked == 0 ? "unexercised" : violations.isEmpty ? "kept" : "broken",
                checked: checked, violations: Array(violations.prefix(5))))
        }
        let at = { (event: EntitlementEvent) in HealthCard.clock(event.timestamp) }

        // 1. setRequestorComplete comes before any answer to the calls that waited for it.
        var configuring = false, requestorChecks = 0
        var early: [String] = []
        for event in events {
            switch event.kind {
            case .apiCall(.setRequestor, _): configuring = true; requestorChecks += 1
            case .callback(.setRequestorComplete): configuring = false
            case .callback(let callback) where configuring && isResult(callback):
                early.append("\(callback.name) at \(at(event)) arrived before setRequestorComplete")
            default: break
            }
        }
        rule("requestor_first", "setRequestorComplete arrives before any answer to calls made while setRequestor runs.",
            checked: requestorChecks, violations: early)

        // 2. checkAuthentication answers from storage: one setAuthenticationStatus, no network call before it.
        var checkCalls = 0
        var checkViolations: [String] = []
        var pendingCheck: EntitlementEvent?
        var sawNetwork = false
        for event in events {
            switch event.kind {
            case .apiCall(.checkAuthentication, _):
                checkCalls += 1
                pendingCheck = event
                sawNetwork = false
            case .httpExchange(let exchange) where pendingCheck != nil && exchange.url.contains("/adobe-services/"):
                if !sawNetwork { checkViolations.append("checkAuthentication at \(at(pendingCheck!)) called \(exchange.url) before answering") }
                sawNetwork = true
            case .callback(.setAuthenticationStatus): pendingCheck = nil
            default: break
            }
        }
        rule("check_is_local", "checkAuthentication answers from storage alone, without a network call.",
            checked: checkCalls, violations: checkViolations)

        // 3. Every authorization result is one per call: setToken or tokenRequestFailed, never both, never twice.
        var asked: [String: Int] = [:], answered: [String: Int] = [:]
        var authzViolations: [String] = []
        var authzResults = 0
        for event in events {
            switch event.kind {
            case .apiCall(.checkAuthorization, let arguments), .apiCall(.getAuthorization, let arguments):
                asked[arguments["resource"] ?? "", default: 0] += 1
            case .callback(.setToken(_, let resource)), .callback(.tokenRequestFailed(let resource, _, _)):
                authzResults += 1
                answered[resource, default: 0] += 1
                if answered[resource, default: 0] > asked[resource, default: 0] {
                    authzViolations.append("'\(resource)' got an extra answer at \(at(event)) (\(answered[resource]!) answers, \(asked[resource, default: 0]) calls)")
                }
            default: break
            }
        }
        rule("one_authorization_answer", "Each checkAuthorization / getAuthorization gets one answer: setToken or tokenRequestFailed.",
            checked: authzResults, violations: authzViolations)

        // 4. tokenRequestFailed carries one of the documented error codes.
        let known = Set(ErrorCode.allCases.map(\.rawValue))
        var failures = 0
        var unknownCodes: [String] = []
        for event in events {
            if case .callback(.tokenRequestFailed(let resource, let code, _)) = event.kind {
                failures += 1
                if !known.contains(code) { unknownCodes.append("'\(resource)' failed at \(at(event)) with the undocumented code “\(code)”") }
            }
        }
        rule("documented_error_codes", "tokenRequestFailed carries a documented error code.", checked: failures, violations: unknownCodes)

        // 5–6. Tracking: one authorization event per authorization result, one authentication event per
        // authentication result (except logout's, which is not a tracked trigger on iOS).
        var authnResults = 0
        var authzTracked = 0, authnTracked = 0
        for (index, event) in events.enumerated() {
            switch event.kind {
            // The answer that ends a logout (after its redirect chain) is not tracked.
            case .callback(.setAuthenticationStatus): if !logout.answers.contains(index) { authnResults += 1 }
            case .tracking(.authorizationDetection, _): authzTracked += 1
            case .tracking(.authenticationDetection, _): authnTracked += 1
            default: break
            }
        }
        rule("authorization_tracked", "Every authorization result is followed by one authorizationDetection tracking event.",
            checked: authzResults,
            violations: authzTracked == authzResults ? [] : ["\(authzResults) authorization results, \(authzTracked) authorizationDetection events"])
        rule("authentication_tracked", "Every authentication result (check, get, cancel, login) is followed by one authenticationDetection tracking event.",
            checked: authnResults,
            violations: authnTracked == authnResults ? [] : ["\(authnResults) authentication results, \(authnTracked) authenticationDetection events"])

        // 7. Media tokens are handed to the app and never stored.
        var stores = 0
        var mediaStored: [String] = []
        for event in events {
            if case .storageChanged(_, let change) = event.kind {
                stores += 1
                if change.lowercased().contains("media token") { mediaStored.append("at \(at(event)): \(change)") }
            }
        }
        rule("media_tokens_not_stored", "Short media tokens are never written to storage.", checked: stores, violations: mediaStored)

        // 8. logout ends with setAuthenticationStatus(0).
        var logouts = 0
        var logoutViolations: [String] = []
        for (index, event) in events.enumerated() {
            if case .apiCall(.logout, _) = event.kind { logouts += 1 }
            if logout.answers.contains(index), case .callback(.setAuthenticationStatus(let status, _)) = event.kind, status != 0 {
                logoutViolations.append("a logout ended with setAuthenticationStatus(\(status)) at \(at(event))")
            }
        }
        rule("logout_ends_signed_out", "logout ends with setAuthenticationStatus(0).", checked: logouts, violations: logoutViolations)
        return rules
    }
}
