import Locking
import MicroHTTP
import PassRecording

/// The proxy's rules, in order (the first match acts), changed as a whole from the console.
public final class ProxyRules: Sendable {
    private let rules = Mutex<[ProxyRule]>([])

    public init(_ rules: [ProxyRule] = []) { self.rules.withLock { $0 = rules } }

    /// At most this many rules.
    public static let maxCount = 100

    public var all: [ProxyRule] { rules.withLock { $0 } }

    /// Replaces the rules. - Throws: ``HTTPError`` 400 naming the first rule that cannot be used, and why.
    public func replace(with new: [ProxyRule]) throws(HTTPError) {
        guard new.count <= Self.maxCount else {
            throw HTTPError(.badRequest, code: "too_many_rules", message: "At most \(Self.maxCount) rules, not \(new.count).")
        }
        for (index, rule) in new.enumerated() {
            if let problem = rule.problem {
                throw HTTPError(.badRequest, code: "invalid_rule", message: "Rule \(index + 1): \(problem)")
            }
        }
        rules.withLock { $0 = new }
    }

    /// The first rule matching `request`; the exchange is read (``ExchangeReading``) only when there are rules.
    func first(matching request: Request) -> ProxyRule? {
        let all = self.all
        guard !all.isEmpty else { return nil }
        let reading = ExchangeReading(request, Response())
        return all.first { $0.matches(request, reading: reading) }
    }
}
