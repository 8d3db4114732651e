import Foundation
import MicroHTTP
import PassRecording

/// A rule on the proxy's path, set from the console (`PUT /_proxy/rules`): for requests matching its path,
/// Programmer and MVPD, hold the request for a while, answer with a status of its own instead of the service, or drop it
/// (close the connection without an answer) — to see how an app copes with a failing real service. Each exchange a rule acted
/// on is recorded with the rule's words (``ServedFacts/rule``), which the session's health card names.
public struct ProxyRule: Codable, Sendable, Equatable {
    /// A name the person chose (shown in the diagnosis); defaults to the rule in words.
    public var name: String?
    /// Matches when the request's path contains this text (`/api/v1/authorize`, `authorize`); any path when absent.
    public var path: String?
    /// Matches the Programmer the request names; any when absent.
    public var requestor: String?
    /// Matches the MVPD the request names; any when absent.
    public var mvpd: String?
    /// Milliseconds to hold the request before anything else (0–60,000).
    public var delayMs: Int?
    /// Answer with this status (400–599) instead of forwarding.
    public var status: Int?
    /// Close the connection without an answer instead of forwarding.
    public var drop: Bool?

    public init(
        name: String? = nil, path: String? = nil, requestor: String? = nil, mvpd: String? = nil, delayMs: Int? = nil,
        status: Int? = nil, drop: Bool? = nil
    ) {
        self.name = name
        self.path = path
        self.requestor = requestor
        self.mvpd = mvpd
        self.delayMs = delayMs
        self.status = status
        self.drop = drop
    }

    /// The longest hold a rule may ask for.
    public static let maxDelayMs = 60_000

    /// Why the rule cannot be used, in words; `nil` when it can.
    public var problem: String? {
        if let delayMs, !(0...Self.maxDelayMs).contains(delayMs) { return "delayMs must be between 0 and \(Self.maxDelayMs), not \(delayMs)." }
        if let status, !(400...599).contains(status) { return "status must be an error status between 400 and 599, not \(status)." }
        if status != nil, drop == true { return "A rule answers with a status or drops the request, not both." }
        if (delayMs ?? 0) == 0, status == nil, drop != true { return "A rule must delay, answer with a status, or drop the request." }
        for (field, value) in [("path", path), ("requestor", requestor), ("mvpd", mvpd), ("name", name)] {
            if let value, value.utf8.count > 512 { return "\(field) is longer than 512 bytes." }
        }
        return nil
    }

    /// Whether the rule applies to `request` (its path, and the Programmer and MVPD it names).
    func matches(_ request: Request, reading: ExchangeReading?) -> Bool {
        if let path, !path.isEmpty, !request.path.contains(path) { return false }
        if let requestor, !requestor.isEmpty, reading?.requestorID?.caseInsensitiveCompare(requestor) != .orderedSame { return false }
        if let mvpd, !mvpd.isEmpty, reading?.mvpdID?.caseInsensitiveCompare(mvpd) != .orderedSame { return false }
        return true
    }

    /// The rule in words: `503 on authorize for REF30`, `hold 2000 ms then forward on any path`.
    public var words: String {
        var action: [String] = []
        if let delayMs, delayMs > 0 { action.append("hold \(delayMs) ms") }
        if let status {
            action.append("answer \(status)")
        } else if drop == true {
            action.append("drop the connection")
        } else {
            action.append("then forward")
        }
        var scope = "on " + (path.flatMap { $0.isEmpty ? nil : $0 } ?? "any path")
        if let requestor, !requestor.isEmpty { scope += " for \(requestor)" }
        if let mvpd, !mvpd.isEmpty { scope += " with \(mvpd)" }
        let text = action.joined(separator: " ") + " " + scope
        return name.flatMap { $0.isEmpty ? nil : "\($0) (\(text))" } ?? text
    }
}
