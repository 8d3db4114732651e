import AccessEnabler
import Foundation
import PassProtocol

/// Which side refused a call, and by which rule, read from what was recorded — never guessed from a delegate error
/// code alone (`User Not Authenticated Error` is the SDK's answer to a dozen different causes).
///
/// - SDK storage rule: the SDK decided on the device from its token storage (``TokenValidity``: TTL, issuer, device
///   ID; the sanitizer; logout clearing the shared storage; storage version).
/// - Backend check: the service refused a token by one of its checks, named by the `Authzf-Error-Code` the SDK
///   recorded with the exchange (``TokenRejection``), or throttled the call.
/// - MVPD decision: the TV provider denied the resource (HTTP 403 with the MVPD's own words).
/// - Network: no answer (timeout, DNS, connection refused) or the service failing (5xx).
/// - SDK rule: the SDK refused a call by a rule that is not about storage (a redirect URL of another scheme).
/// - Apple TV Provider: the platform's single sign-on (the user's choice in the Apple dialog, Settings).
struct Refusal: Equatable, Sendable {
    enum Side: String, Encodable, Sendable {
        case sdkStorage, backend, mvpd, network
        /// An SDK rule that is not about storage (a redirect URL that does not match the login).
        case sdk
        /// The platform's TV provider (Apple single sign-on): what the user or Settings → TV Provider decided.
        case platform

        /// `SDK storage rule`, `Backend check`, `MVPD decision`, `Network`, `SDK rule`, `Apple TV Provider`.
        var label: String {
            switch self {
            case .sdkStorage: "SDK storage rule"
            case .sdk: "SDK rule"
            case .platform: "Apple TV Provider"
            case .backend: "Backend check"
            case .mvpd: "MVPD decision"
            case .network: "Network"
            }
        }
    }

    var side: Side
    /// The rule, as a short name (`token issued to another Programmer`, `TTL expired`, `HTTP 503`).
    var rule: String
    /// The code the side gave, when it gave one (`token_requestor_mismatch`, `user_not_authorized`).
    var code: String?
    /// What the side said or what the rule found, in words.
    var detail: String

    /// `Backend check “token issued to another Programmer” (token_requestor_mismatch): The token was issued to …`.
    var sentence: String {
        "\(side.label) “\(rule)”" + (code.map { " (\($0))" } ?? "") + (detail.isEmpty ? "." : ": \(detail)")
    }

    /// The refusal an exchange's answer (or missing answer) stands for; `nil` when the call succeeded.
    static func of(_ exchange: HTTPExchange) -> Refusal? {
        let path = URL(string: exchange.url)?.lastPathComponent ?? exchange.url
        if let failure = exchange.failure {
            return Refusal(side: .network, rule: "no answer", code: nil, detail: "\(path) got no answer (\(failure)).")
        }
        guard let status = exchange.status, status >= 400 else { return nil }
        let details = exchange.responseBody.flatMap(SDKResponses.parseError) ?? ""
        if status == 403 || exchange.errorCode == "user_not_authorized" {
            return Refusal(
                side: .mvpd, rule: "denied the resource", code: exchange.errorCode ?? "HTTP 403",
                detail: details.isEmpty ? "the TV provider refused without a reason." : "“\(details)”")
        }
        if status == 429 {
            return Refusal(
                side: .backend, rule: "throttled", code: "HTTP 429",
                detail: "too many requests from this client; not a denial, retry after a second.")
        }
        if status >= 500 {
            return Refusal(
                side: .network, rule: "service failing", code: "HTTP \(status)",
                detail: "\(path) answered HTTP \(status)" + (details.isEmpty ? "." : ": \(details)"))
        }
        if let code = exchange.errorCode, let rule = TokenRejection.rule(forCode: code) {
            return Refusal(side: .backend, rule: rule, code: code, detail: details)
        }
        return Refusal(side: .backend, rule: "HTTP \(status)", code: exchange.errorCode, detail: details)
    }

    /// The SDK's own refusal of a stored token, by ``TokenValidity``.
    static func storage(_ validity: TokenValidity, what: String) -> Refusal? {
        let rule: String
        switch validity {
        case .valid: return nil
        case .malformed: rule = "token unreadable"
        case .expired: rule = "TTL expired"
        case .issuerNotAllowed: rule = "issuer not allowed"
        case .boundToAnotherDevice: rule = "device ID mismatch"
        }
        return Refusal(side: .sdkStorage, rule: rule, code: nil, detail: "\(what) \(validity.explanation).")
    }
}

extension Array where Element == EntitlementEvent {
    /// The refusal of the last exchange before index `end` since the last API call: what made the call fail, or
    /// `nil` when the SDK failed it without asking anyone (a storage rule).
    func refusal(before end: Int) -> Refusal? {
        var index = end - 1
        while index >= startIndex {
            switch self[index].kind {
            case .httpExchange(let exchange): if let refusal = Refusal.of(exchange) { return refusal }
            case .apiCall: return nil
            default: break
            }
            index -= 1
        }
        return nil
    }
}
