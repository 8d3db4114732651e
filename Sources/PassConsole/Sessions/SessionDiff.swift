import AccessEnabler
import Foundation

/// Two runs of a flow compared as series (what QA asks when one run works and the other does not): the events of
/// both sessions aligned step by step (longest common subsequence of their steps), each row the same, changed
/// (same step, another outcome: an HTTP status, a callback's arguments), or only in one run, with each side's time
/// since its first event. Pure: events in, rows out.
struct SessionDiff: Encodable, Sendable {
    struct Side: Encodable, Sendable, Equatable {
        var sequence: Int
        var summary: String
        /// Milliseconds since the run's first event.
        var atMs: Int
    }

    struct Row: Encodable, Sendable, Equatable {
        /// `same`, `changed`, `onlyA`, `onlyB`.
        var status: String
        var step: String
        var a: Side?
        var b: Side?
    }

    struct Counts: Encodable, Sendable, Equatable {
        var same = 0, changed = 0, onlyA = 0, onlyB = 0
    }

    var rows: [Row]
    var counts: Counts
    /// One sentence: where the runs part ways first.
    var verdict: String

    /// Longest runs compared (the alignment table is `a × b` cells).
    static let maximumEvents = 3000

    init(_ a: [EntitlementEvent], _ b: [EntitlementEvent]) {
        let a = Array(a.prefix(Self.maximumEvents)), b = Array(b.prefix(Self.maximumEvents))
        let stepsA = a.map(Self.step), stepsB = b.map(Self.step)
        // LCS lengths from the end, so the walk below goes forward.
        var table = [[Int32]](repeating: [Int32](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                table[i][j] = stepsA[i] == stepsB[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        let startA = a.first?.timestamp ?? Date(), startB = b.first?.timestamp ?? Date()
        func side(_ event: EntitlementEvent, _ start: Date) -> Side {
            Side(sequence: event.sequence, summary: event.summary, atMs: Int(event.timestamp.timeIntervalSince(start) * 1000))
        }
        var rows: [Row] = []
        var counts = Counts()
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, stepsA[i] == stepsB[j] {
                let same = Self.outcome(a[i]) == Self.outcome(b[j])
                rows.append(Row(status: same ? "same" : "changed", step: stepsA[i], a: side(a[i], startA), b: side(b[j], startB)))
                if same { counts.same += 1 } else { counts.changed += 1 }
                i += 1
                j += 1
            } else if j >= b.count || (i < a.count && table[i + 1][j] >= table[i][j + 1]) {
                rows.append(Row(status: "onlyA", step: stepsA[i], a: side(a[i], startA), b: nil))
                counts.onlyA += 1
                i += 1
            } else {
                rows.append(Row(status: "onlyB", step: stepsB[j], a: nil, b: side(b[j], startB)))
                counts.onlyB += 1
                j += 1
            }
        }
        self.rows = rows
        self.counts = counts
        if let first = rows.first(where: { $0.status != "same" }) {
            switch first.status {
            case "changed":
                verdict = "The runs part ways at “\(first.step)”: the first run got “\(first.a!.summary)”, the second “\(first.b!.summary)”."
            case "onlyA": verdict = "The runs part ways at “\(first.a!.summary)”, which only the first run has."
            default: verdict = "The runs part ways at “\(first.b!.summary)”, which only the second run has."
            }
        } else {
            verdict = "The runs took the same steps with the same outcomes."
        }
    }

    /// What an event got, for comparing one step in two runs: an exchange's status (not its timing), otherwise the
    /// event's summary without per-run identifiers (a user GUID hash, a device ID: they differ on another device).
    static func outcome(_ event: EntitlementEvent) -> String {
        if case .httpExchange(let exchange) = event.kind { return exchange.status.map(String.init) ?? "no answer: \(exchange.failure ?? "")" }
        return withoutIdentifiers(event.summary)
    }

    /// `text` with every run of 16 or more hex digits (GUID hashes, device IDs, UUIDs without dashes) as `#id`.
    static func withoutIdentifiers(_ text: String) -> String {
        var output = ""
        var run = ""
        func flush() {
            output += run.count >= 16 ? "#id" : run
            run = ""
        }
        for character in text {
            if character.isHexDigit { run.append(character) } else {
                flush()
                output.append(character)
            }
        }
        flush()
        return output
    }

    /// What an event did, without what it got: the step two runs can share (`GET /adobe-services/config/REF30`,
    /// `callback setAuthenticationStatus`, `call getAuthorization`). The outcome is compared separately.
    static func step(_ event: EntitlementEvent) -> String {
        switch event.kind {
        case .apiCall(let method, _): "call \(method.rawValue)"
        case .stateChanged(let flow, _, let to):
            "\(flow.rawValue) → \(to.name?.rawValue ?? to.rawValue.split(separator: "(").first.map(String.init) ?? to.rawValue)"
        case .httpExchange(let exchange): "\(exchange.method) \(URLComponents(string: exchange.url)?.path ?? exchange.url)"
        case .callback(let callback): "callback \(callback.name)"
        case .storageChanged(let domain, _): "storage \(domain)"
        case .tracking(let event, _): "tracking \(event)"
        case .error(let code, _): "error \(code)"
        }
    }
}
