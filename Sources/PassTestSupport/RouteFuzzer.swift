import Foundation
import MicroHTTP

/// Sends extreme and random values to every route of a server over real HTTP, one input at a time, and reports
/// any answer that is missing or a server error (issue #14: one request must never stop the process).
///
/// Which inputs a route reads is learnt, not listed: each route is first called in-process with a
/// ``RequestReadLog`` (a few rounds, filling what was read with plausible values to get deeper), so a new route or
/// parameter is fuzzed without touching the test.
public struct RouteFuzzer: Sendable {
    /// One route's learnt inputs.
    public struct Plan: Sendable {
        /// The route.
        public var route: Router.RouteDescription
        /// The query parameters and headers it read.
        public var inputs: [RequestReadLog.Input]
        /// The JSON body fields it read.
        public var bodyFields: [BodyProbe.Field]
    }

    /// What a run found.
    public struct Report: Sendable {
        /// Requests sent.
        public var requests = 0
        /// Routes fuzzed.
        public var routes = 0
        /// Inputs fuzzed, over every route.
        public var inputs = 0
        /// `METHOD pattern: what went wrong (the input and value)`.
        public var failures: [String] = []
    }

    /// The server's responder, called in-process to learn what each route reads.
    public var responder: any HTTPResponder
    /// The port the same server listens on (the fuzzing goes over real HTTP).
    public var port: UInt16
    /// The routes to fuzz.
    public var routes: [Router.RouteDescription]
    /// Values for `{name}` path segments, by `"pattern name"` or by `name`; `x` otherwise.
    public var pathValues: [String: String] = [:]
    /// A body (content type, bytes) for routes that read a raw body, by `"METHOD pattern"`.
    public var baseBodies: [String: (String, Data)] = [:]
    /// Plausible values for named inputs, so a handler gets past its first checks; `1` otherwise.
    public var baseValues: [String: String] = [:]
    /// Headers every request carries (a token, the CSRF header), given the method and path.
    public var baseHeaders: @Sendable (String, String) -> [(String, String)] = { _, _ in [] }
    /// Server errors a route documents (`"POST /api/apps/{id}/start 500"`), not counted as failures.
    public var documentedServerErrors: Set<String> = []
    /// Runs after each request (to undo what an admin route changed).
    public var afterEach: @Sendable (Router.RouteDescription) -> Void = { _ in }
    /// Random values per input on top of the fixed extremes.
    public var randomValuesPerInput = 2
    /// The seed of the random values: a failure replays with the same seed.
    public var seed: UInt64 = 14

    /// A fuzzer of `routes`, learnt through `responder` and sent to `port`.
    public init(responder: any HTTPResponder, port: UInt16, routes: [Router.RouteDescription]) {
        self.responder = responder
        self.port = port
        self.routes = routes
    }

    /// Texts for query, form, header and path inputs: out of every numeric range, not numbers, huge, empty, not UTF-8.
    public static let extremeTexts: [String] = [
        "-1", "0", "-0", String(Int.min), String(Int.max), "9223372036854775808", "-9223372036854775809",
        String(UInt64.max), "1e300", "-1e300", "NaN", "nan", "inf", "-inf", "1.5", " 1", "0x7fffffffffffffff",
        "", String(repeating: "9", count: 1000), String(repeating: "é", count: 500), "\u{0}", "%FF%FE%zz",
    ]

    /// JSON literals for a number field; `NaN` and the bare huge string are not JSON at all, on purpose.
    public static let extremeJSONNumbers: [String] = [
        "-1", "0", "-0", String(Int.min), String(Int.max), "9223372036854775808", "-9223372036854775809", "1e300",
        "-1e300", "1.5", "5e-324", "NaN", "\"NaN\"", "null", "[]", "{}", "1" + String(repeating: "0", count: 400), "\"\"",
    ]

    /// JSON literals for a string or boolean field.
    public static let extremeJSONStrings: [String] = [
        "\"\"", "\"" + String(repeating: "A", count: 100_000) + "\"", "\"\\u0000\"", "\"\\ud800\"", "1e300",
        String(Int.min), "null", "true", "[]", "{}",
    ]

    // MARK: - Learning the inputs

    /// Learns what each route reads: up to three in-process calls, each filling what the last one read.
    public func plans() async -> [Plan] {
        var plans: [Plan] = []
        for route in routes {
            var inputs: [RequestReadLog.Input] = []
            var fields: [BodyProbe.Field] = []
            for _ in 0..<3 {
                let log = RequestReadLog()
                var request = self.request(route, inputs: inputs, fields: fields, mutated: nil)
                request.readLog = log
                if responder.respondInline(to: request) == nil { _ = await responder.respond(to: request) }
                afterEach(route)
                let newInputs = log.inputs.filter { !inputs.contains($0) }.sorted { ($0.source.rawValue, $0.name) < ($1.source.rawValue, $1.name) }
                let newFields = (log.bodyFields ?? []).filter { !fields.contains($0) }
                if newInputs.isEmpty && newFields.isEmpty { break }
                inputs += newInputs
                fields += newFields
            }
            plans.append(Plan(route: route, inputs: inputs, bodyFields: fields))
        }
        return plans
    }

    // MARK: - Fuzzing over HTTP

    /// Fuzzes every route; `check` is called after each route to confirm the server(s) still answer.
    public func run(plans: [Plan], check: @Sendable () async -> String?) async -> Report {
        var report = Report()
        var random = SeededRandom(seed: seed)
        for plan in plans {
            report.routes += 1
            var mutations: [Mutation] = []
            for input in plan.inputs {
                report.inputs += 1
                let randoms = (0..<randomValuesPerInput).map { _ in random.text() }
                for value in Self.extremeTexts + randoms { mutations.append(.input(input, value)) }
            }
            for (index, segment) in plan.route.pattern.split(separator: "/").enumerated() where segment.hasPrefix("{") {
                for value in ["-1", String(Int.max), "1e300", "NaN", String(repeating: "z", count: 2000), "%FF%FE"] {
                    mutations.append(.path(index, value))
                }
            }
            for field in plan.bodyFields {
                report.inputs += 1
                let values = field.kind == .number ? Self.extremeJSONNumbers : Self.extremeJSONStrings
                for value in values { mutations.append(.field(field, value)) }
            }
            if mutations.isEmpty { mutations.append(.none) }
            for mutation in mutations {
                report.requests += 1
                let request = self.request(plan.route, inputs: plan.inputs, fields: plan.bodyFields, mutated: mutation)
                let status = await send(request, mutation: mutation)
                afterEach(plan.route)
                let name = "\(plan.route.method) \(plan.route.pattern)"
                switch status {
                case nil: report.failures.append("\(name): no answer for \(mutation)")
                case let code? where code >= 500 && !documentedServerErrors.contains("\(name) \(code)"):
                    report.failures.append("\(name): \(code) for \(mutation)")
                default: break
                }
            }
            if let down = await check() {
                report.failures.append("after \(plan.route.method) \(plan.route.pattern): \(down)")
                return report
            }
        }
        return report
    }

    enum Mutation: CustomStringConvertible {
        case none
        case input(RequestReadLog.Input, String)
        case path(Int, String)
        case field(BodyProbe.Field, String)

        var description: String {
            let shown = { (text: String) in text.count > 40 ? "\(text.prefix(20))…(\(text.count) chars)" : text }
            switch self {
            case .none: return "the base request"
            case .input(let input, let value): return "\(input.source.rawValue) \(input.name)=\(shown(value).debugDescription)"
            case .path(let index, let value): return "path segment \(index)=\(shown(value).debugDescription)"
            case .field(let field, let value): return "JSON \(field.path.joined(separator: "."))=\(shown(value))"
            }
        }
    }

    /// The request with base values everywhere and `mutated` applied (raw text: sent as is on the wire).
    func request(_ route: Router.RouteDescription, inputs: [RequestReadLog.Input], fields: [BodyProbe.Field], mutated: Mutation?)
        -> Request
    {
        var segments = route.pattern.split(separator: "/").map(String.init).map { segment -> String in
            guard segment.hasPrefix("{") else { return segment }
            let name = segment.trimmingCharacters(in: CharacterSet(charactersIn: "{}.")).replacingOccurrences(of: "...", with: "")
            return pathValues["\(route.pattern) \(name)"] ?? pathValues[name] ?? "x"
        }
        if case .path(let index, let value)? = mutated, index < segments.count { segments[index] = value }
        let path = "/" + segments.joined(separator: "/")
        var query: [(name: String, value: String)] = []
        var form: [(String, String)] = []
        var headers = baseHeaders(route.method, path).map { (name: $0.0, value: $0.1) }
        let sendsForm = ["POST", "PUT"].contains(route.method) && fields.isEmpty
        func value(_ input: RequestReadLog.Input, base: String?) -> String {
            if case .input(let changed, let text)? = mutated, changed == input { return text }
            return base ?? baseValues[input.name] ?? "1"
        }
        for input in inputs {
            switch input.source {
            case .query: query.append((input.name, value(input, base: nil)))
            case .parameter:
                if sendsForm { form.append((input.name, value(input, base: nil))) } else { query.append((input.name, value(input, base: nil))) }
            case .header: break
            }
        }
        var body = Data()
        if !fields.isEmpty {
            var tree = JSONTree.object([:])
            for field in fields {
                var raw = field.kind == .number ? "1" : field.kind == .bool ? "false" : "\"x\""
                if case .field(let changed, let literal)? = mutated, changed == field { raw = literal }
                tree.insert(field.path[...], raw)
            }
            body = Data(tree.text.utf8)
            headers.append(("Content-Type", "application/json"))
        } else if !form.isEmpty {
            body = Data(form.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&").utf8)
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        } else if let (type, data) = baseBodies["\(route.method) \(route.pattern)"] {
            body = data
            headers.append(("Content-Type", type))
        } else if sendsForm {
            // An empty JSON object: a route that takes JSON only (the backend's admin API refuses any other type)
            // reaches its handler, which then shows what it reads.
            body = Data("{}".utf8)
            headers.append(("Content-Type", "application/json"))
        }
        // Headers a handler reads keep the base request's value (its token, its body's type) unless mutated.
        for input in inputs where input.source == .header {
            let current = headers.first { $0.name.equalsIgnoringASCIICase(input.name) }?.value
            headers.removeAll { $0.name.equalsIgnoringASCIICase(input.name) }
            headers.append((input.name, value(input, base: current)))
        }
        return Request(method: route.method, path: path, queryItems: query, headers: headers, body: body, remoteAddress: "127.0.0.1")
    }

    /// Percent-encodes all but unreserved characters; a value already holding `%` escapes (`%FF`) is sent as is, so
    /// malformed and non-UTF-8 escapes reach the server.
    static func escape(_ text: String) -> String {
        text.contains("%") ? text.replacingOccurrences(of: " ", with: "+") : FormEncoding.escape(text)
    }

    /// Sends `request` on a new connection; the answer's status, or nil when none came within 20 s.
    func send(_ request: Request, mutation: Mutation) async -> Int? {
        guard let connection = try? RawConnection(port: port) else { return nil }
        var target = request.path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.contains("%") ? String($0) : FormEncoding.escape(String($0)) }.joined(separator: "/")
        if !request.queryItems.isEmpty {
            target += "?" + request.queryItems.map { "\(Self.escape($0.name))=\(Self.escape($0.value))" }.joined(separator: "&")
        }
        var head = Data("\(request.method) \(target) HTTP/1.1\r\nConnection: close\r\n".utf8)
        if request.header("Host") == nil { head.append(Data("Host: 127.0.0.1:\(port)\r\n".utf8)) }
        for (name, value) in request.headers {
            head.append(Data("\(name): ".utf8))
            // A header value with invalid UTF-8 goes out as raw bytes.
            head.append(value == "%FF%FE%zz" ? Data([0xFF, 0xFE, 0x7A]) : Data(value.replacingOccurrences(of: "\r", with: "")
                .replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: "\u{0}", with: "").utf8))
            head.append(Data("\r\n".utf8))
        }
        head.append(Data("Content-Length: \(request.body.count)\r\n\r\n".utf8))
        connection.sendBytes(head + request.body)
        let text = await connection.read(until: "\r\n", timeout: .seconds(20))
        connection.closeNow()
        guard text.hasPrefix("HTTP/1.") else { return nil }
        return text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
    }
}

/// A JSON document built from field paths (`rules.0.status`), leaves given as raw JSON text.
enum JSONTree {
    case object([String: JSONTree])
    case array([JSONTree])
    case raw(String)

    mutating func insert(_ path: ArraySlice<String>, _ raw: String) {
        guard let head = path.first else { self = .raw(raw); return }
        let rest = path.dropFirst()
        if head == "0" {
            var element: JSONTree = rest.first == "0" ? .array([]) : .object([:])
            if case .array(let items) = self, let first = items.first { element = first }
            element.insert(rest, raw)
            self = .array([element])
        } else {
            var members: [String: JSONTree] = [:]
            if case .object(let existing) = self { members = existing }
            var child = members[head] ?? (rest.first == "0" ? .array([]) : .object([:]))
            child.insert(rest, raw)
            members[head] = child
            self = .object(members)
        }
    }

    var text: String {
        switch self {
        case .raw(let raw): raw
        case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.sorted { $0.key < $1.key }.map { "\(String(reflecting: $0.key)):\($0.value.text)" }.joined(separator: ",") + "}"
        }
    }
}

extension SeededRandom {
    /// A random integer, a random double, or random printable text.
    mutating func text() -> String {
        switch next() % 3 {
        case 0: return String(Int64(bitPattern: next()))
        case 1: return String(Double(bitPattern: next()))
        default:
            let length = Int(next() % 64)
            return String((0..<length).map { _ in Character(Unicode.Scalar(UInt8(33 + next() % 94))) })
        }
    }
}
