import AccessEnabler
import ArgumentParser
import Foundation
import PassCommandLine
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `passconsole-bench bench-flow`: time to media token through the SDK vs the bare HTTP round trips the same flow needs,
/// measured in one process and interleaved per iteration (`make bench` runs it).
struct BenchFlowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-flow",
        abstract: "Benchmark: time to media token through AccessEnabler vs bare HTTP requests (warm and cold).",
        discussion: """
            Warm: an iOS app logged in (Dish, carol) and authorized for news once; each iteration is one \
            getAuthorization (authZ cached: one deviceShortAuthorize) against the same request made with URLSession. \
            Cold: each iteration a fresh device folder and a new AccessEnabler with no event subscriber, from \
            setRequestor through the picker, the login page, sessionDevice, authorizeDevice and deviceShortAuthorize, \
            against the same eight requests made with two new URLSessions (the app's, made in the flow as the SDK \
            makes its own, and the browser's for the login pages, made before it as the app's web view is); the SDK's \
            storage write lands after the flow, outside the time but inside the client CPU column. Prints median and p90 ms, SDK/bare \
            (median; target ≤ 1.10) and round trips per flow, counted on an untimed first flow (target: the SDK \
            sends no more than the bare flow).
            """)

    @Option(help: "The backend's base URL (the service provider is <backend>/adobe-services).")
    var backend = "http://127.0.0.1:8081"

    @Option(help: "Timed warm iterations (authN and authZ cached).")
    var iterations = 200

    @Option(name: .customLong("cold-iterations"), help: "Timed cold iterations (fresh storage each).")
    var coldIterations = 30

    @Option(help: "Untimed warm iterations first (the SDK's round trips are counted on these); cold warms up once.")
    var warmup = 20

    @Flag(help: "Warm: also time the bare request with a new URLSession per request, as the SDK's transport makes one.")
    var diagnose = false

    @Option(name: .customLong("answer-delay-ms"), help: ArgumentHelp(
        "Have the backend hold every answer this many ms (a fault rule set through its /admin/faults, removed at the end), "
            + "as a server across a network would: the same flows, SDK and bare alike, off loopback's sub-millisecond round trips."))
    var answerDelayMs = 0

    @Flag(help: "Print one JSON object instead of the Markdown table.")
    var json = false

    @Flag(help: "Diagnostic: after a warm-up, print one cold SDK flow's events with their offsets from its start, then stop.")
    var timeline = false

    func validate() throws {
        guard let url = URL(string: backend), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--backend must be an http(s) URL such as http://127.0.0.1:8081, not \(backend).")
        }
        guard iterations > 0, coldIterations > 0, warmup > 0 else {
            throw ValidationError("--iterations, --cold-iterations and --warmup must be positive.")
        }
        guard (0...10_000).contains(answerDelayMs) else { throw ValidationError("--answer-delay-ms must be between 0 and 10000.") }
    }

    func run() async throws {
        var base = backend
        while base.hasSuffix("/") { base.removeLast() }
        var bench = FlowBench(serviceProvider: URL(string: base + "/adobe-services")!, names: BenchNames())
        defer { bench.removeDevices() }
        if answerDelayMs > 0 {
            try await AnswerDelay.set(answerDelayMs, backend: base)
            bench.titleSuffix = ", each answer held \(answerDelayMs) ms"
        }
        defer { if answerDelayMs > 0 { AnswerDelay.clear(backend: base) } }
        let watchdog = Watchdog.start(seconds: 90)
        defer { watchdog.cancel() }
        do {
            if timeline { return try await bench.timeline() }
            let warm = try await bench.warm(iterations: iterations, warmup: warmup, diagnose: diagnose)
            let cold = try await bench.cold(iterations: coldIterations)
            let report = BenchFlowReport(backend: base, flows: [warm, cold], loadAverage: BenchFlowReport.loadAverage())
            print(json ? report.json() : report.markdown([warm, cold]))
        } catch {
            FileHandle.standardError.write(Data("bench-flow: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// The two flows, each measured through the SDK and bare, interleaved (SDK first on even iterations, bare first
/// on odd ones) so drift in the machine's load hits both alike.
struct FlowBench: Sendable {
    let serviceProvider: URL
    let names: BenchNames
    let bare: BareFlowClient
    let devices: URL
    /// Added to the flows' titles (`--answer-delay-ms`).
    var titleSuffix = ""

    init(serviceProvider: URL, names: BenchNames) {
        self.serviceProvider = serviceProvider
        self.names = names
        bare = BareFlowClient(serviceProvider: serviceProvider, names: names)
        devices = FileManager.default.temporaryDirectory.appendingPathComponent("passconsole-bench-flow-\(UUID().uuidString)")
    }

    func removeDevices() { try? FileManager.default.removeItem(at: devices) }

    func warm(iterations: Int, warmup: Int, diagnose: Bool) async throws -> FlowMeasurement {
        progress("warm: logging in once (SDK and bare)")
        let app = try BenchApp(device: devices.appendingPathComponent("warm"), serviceProvider: serviceProvider, names: names)
        _ = try await check(app) { try await app.configureAndAuthorize() }
        let login = try await bare.cold(deviceID: Self.deviceID(), browser: BareFlowClient.makeSession()).login

        var measurement = FlowMeasurement(name: "warm", title: "warm: authN + authZ cached" + titleSuffix)
        let before = await app.roundTrips()
        var bareRequests = 0
        for _ in 0..<warmup {
            _ = try await check(app) { try await app.enabler.authorization(for: names.resource) }
            bareRequests += try await bare.warm(login).requests
        }
        measurement.sdkRoundTrips = Double(await app.roundTrips() - before) / Double(warmup)
        measurement.bareRoundTrips = Double(bareRequests) / Double(warmup)
        app.stopCounting()

        progress("warm: \(iterations) iterations")
        let clock = ContinuousClock()
        var fresh = Samples()
        for index in 0..<iterations {
            for sdkTurn in index.isMultiple(of: 2) ? [true, false] : [false, true] {
                let cpu = BenchConsoleCommand.processCPUSeconds()
                let start = clock.now
                if sdkTurn {
                    _ = try await check(app) { try await app.enabler.authorization(for: names.resource) }
                    measurement.sdk.add(clock.now - start)
                    measurement.sdkCPU += BenchConsoleCommand.processCPUSeconds() - cpu
                } else {
                    _ = try await bare.warm(login)
                    measurement.bare.add(clock.now - start)
                    measurement.bareCPU += BenchConsoleCommand.processCPUSeconds() - cpu
                }
            }
            if diagnose {
                let start = clock.now
                _ = try await bare.warm(login, freshSession: true)
                fresh.add(clock.now - start)
            }
            Watchdog.progress()
        }
        if diagnose { measurement.bareFreshSession = fresh }
        measurement.sdkCPU *= 1000 / Double(iterations)
        measurement.bareCPU *= 1000 / Double(iterations)
        return measurement
    }

    /// Cold flows: a new app on a fresh device each. The untimed first (warm-up) flow counts the round trips; the
    /// timed ones run with no event subscriber, as an app without a console. After each SDK flow, untimed, the
    /// storage writes it left behind land (``AccessEnabler/settle()``) so they do not run into the next flow.
    func cold(iterations: Int) async throws -> FlowMeasurement {
        var measurement = FlowMeasurement(name: "cold", title: "cold: fresh storage" + titleSuffix)
        progress("cold: 1 warm-up + \(iterations) iterations")
        let clock = ContinuousClock()
        for index in -1..<iterations {
            let warmUp = index < 0
            for sdkTurn in index.isMultiple(of: 2) ? [true, false] : [false, true] {
                if sdkTurn {
                    let device = devices.appendingPathComponent("cold-\(index + 1)")
                    let app = try BenchApp(device: device, serviceProvider: serviceProvider, names: names, countingRoundTrips: warmUp)
                    let cpu = BenchConsoleCommand.processCPUSeconds()
                    let start = clock.now
                    _ = try await check(app) { try await app.configureAndAuthorize() }
                    let elapsed = clock.now - start
                    await app.enabler.settle()  // the storage write lands: in the CPU column, not in the time
                    if warmUp {
                        measurement.sdkRoundTrips = Double(await app.roundTrips())
                    } else {
                        measurement.sdk.add(elapsed)
                        measurement.sdkCPU += BenchConsoleCommand.processCPUSeconds() - cpu
                    }
                    try? FileManager.default.removeItem(at: device)
                } else {
                    let browser = BareFlowClient.makeSession()
                    let cpu = BenchConsoleCommand.processCPUSeconds()
                    let start = clock.now
                    let requests = try await bare.cold(deviceID: Self.deviceID(), browser: browser).requests
                    let elapsed = clock.now - start
                    if warmUp {
                        measurement.bareRoundTrips = Double(requests)
                    } else {
                        measurement.bare.add(elapsed)
                        measurement.bareCPU += BenchConsoleCommand.processCPUSeconds() - cpu
                    }
                }
            }
            Watchdog.progress()
        }
        measurement.sdkCPU *= 1000 / Double(iterations)
        measurement.bareCPU *= 1000 / Double(iterations)
        return measurement
    }

    /// Cold flows (after two untimed ones), the SDK's events and the bare flow's answers each printed with the
    /// median of their offsets from the flow's start in ms: where the SDK spends the time around its round trips.
    func timeline(flows: Int = 25) async throws {
        var sdk: [[(String, Double)]] = []
        var bareSteps: [[(String, Double)]] = []
        for index in 0..<(flows + 2) {
            let app = try BenchApp(device: devices.appendingPathComponent("timeline-\(index)"), serviceProvider: serviceProvider, names: names)
            let collected = Collected()
            let events = app.enabler.events()
            let collecting = Task { for await event in events { collected.add(event) } }
            let start = Date()
            _ = try await check(app) { try await app.configureAndAuthorize() }
            let end = Date()
            await app.enabler.settle()
            try await Task.sleep(for: .milliseconds(20))
            collecting.cancel()
            let marks = Marks()
            _ = try await bare.cold(deviceID: Self.deviceID(), browser: BareFlowClient.makeSession(), marks: marks)
            guard index >= 2 else { continue }
            var steps: [(String, Double)] = []
            for event in collected.events where event.timestamp <= end {
                if case .httpExchange(let exchange) = event.kind {
                    // When the request left: the answer's time less the exchange's duration.
                    steps.append(("  (sent \(URL(string: exchange.url)?.lastPathComponent ?? "?"))",
                                  event.timestamp.timeIntervalSince(start) * 1000 - exchange.durationMs))
                }
                steps.append((Self.describe(event.kind), event.timestamp.timeIntervalSince(start) * 1000))
            }
            steps.append(("setToken returned to the caller", end.timeIntervalSince(start) * 1000))
            sdk.append(steps)
            bareSteps.append(marks.steps)
        }
        func medians(_ runs: [[(String, Double)]]) -> [(String, Double)] {
            runs[0].indices.map { step in
                let values = runs.filter { $0.count > step }.map { $0[step].1 }.sorted()
                return (runs[0][step].0, values[values.count / 2])
            }
        }
        print("SDK, median of \(flows) cold flows (ms from the start):")
        for (name, offset) in medians(sdk) { print(String(format: "%8.3f  ", offset) + name) }
        print("bare, median of \(flows) cold flows (ms from the start):")
        for (name, offset) in medians(bareSteps) { print(String(format: "%8.3f  ", offset) + name) }
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [EntitlementEvent] = []
        func add(_ event: EntitlementEvent) { lock.withLock { list.append(event) } }
        var events: [EntitlementEvent] { lock.withLock { list } }
    }

    private static func describe(_ kind: EntitlementEvent.Kind) -> String {
        switch kind {
        case .httpExchange(let exchange): "http \(exchange.method) \(URL(string: exchange.url)?.path ?? exchange.url) \(exchange.status ?? 0)"
        case .apiCall(let method, _): "call \(method.rawValue)"
        case .stateChanged(let flow, let from, let to): "state \(flow): \(from) → \(to)"
        case .storageChanged(_, let change): "storage: \(change)"
        case .callback(let callback): "callback \(String("\(callback)".prefix(60)))"
        case .tracking(let event, _): "tracking \(event)"
        case .error(let code, let message): "error \(code) \(message)"
        }
    }

    /// Runs an SDK call; a failure says why, with the web view's sign-in error when there was one.
    private func check<T>(_ app: BenchApp, _ call: () async throws -> T) async throws -> T {
        do { return try await call() } catch {
            throw BareFlowClient.Failure(description: "the SDK failed: \(error)\(app.failure.map { " (sign-in: \($0))" } ?? "")")
        }
    }

    /// A device ID shaped like the SDK's (64 hex digits), new for each bare login.
    static func deviceID() -> String {
        (UUID().uuidString + UUID().uuidString).replacingOccurrences(of: "-", with: "").lowercased()
    }

    private func progress(_ message: String) { FileHandle.standardError.write(Data("bench-flow: \(message)\n".utf8)) }
}

/// Ends the process when no iteration finished for a while (a hung backend must not hang `make bench`). Runs
/// beside the measurements, never inside them.
enum Watchdog {
    private static let last = LastProgress()

    static func progress() { last.touch() }

    static func start(seconds: Double) -> Task<Void, Never> {
        last.touch()
        return Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(5))
                if !Task.isCancelled, last.age > seconds {
                    FileHandle.standardError.write(Data("bench-flow: no progress for \(Int(seconds)) s; giving up.\n".utf8))
                    exit(1)
                }
            }
        }
    }

    private final class LastProgress: @unchecked Sendable {
        private let lock = NSLock()
        private var when = ContinuousClock.now
        func touch() { lock.withLock { when = .now } }
        var age: Double {
            let elapsed = lock.withLock { ContinuousClock.now - when }
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
    }
}

/// `--answer-delay-ms`: a fault rule on the backend holding every answer, set before the flows and removed after.
enum AnswerDelay {
    static func set(_ milliseconds: Int, backend: String) async throws {
        var request = URLRequest(url: URL(string: backend + "/admin/faults/rules")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"path":"*","latencyMs":\#(milliseconds)}"#.utf8)
        if let token = AdminToken.fromEnvironment { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (_, response) = try await URLSession.shared.data(for: request)
        guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else {
            throw BareFlowClient.Failure(description: "the backend at \(backend) refused the answer-delay fault rule")
        }
    }

    /// Restores the backend's configured faults (best effort: the backend may be gone).
    static func clear(backend: String) {
        var request = URLRequest(url: URL(string: backend + "/admin/faults/reset")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("{}".utf8)
        if let token = AdminToken.fromEnvironment { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { _, _, _ in done.signal() }.resume()
        _ = done.wait(timeout: .now() + 5)
    }
}
