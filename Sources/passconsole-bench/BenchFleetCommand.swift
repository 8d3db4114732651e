import AccessEnabler
import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `passconsole-bench bench-fleet`: a fleet of apps reporting to running consoles, as a team's test devices do. Each of
/// `--apps` simulated apps (spread over `--devices` devices and over every `--console`) has an ``EventReporter`` of
/// its own, exactly as an app links it, and reports flows of 40 events (calls, state changes, HTTP exchanges,
/// storage writes, callbacks, tracking, errors).
///
/// Two runs: **flat out** (every app queues `--flows` flows at once; how fast the consoles take them all) and
/// **steady** (`--rate` events/s offered across the fleet for `--duration` s; whether every event lands and how late
/// the last ones are). For each: events/s accepted, the consoles' CPU per event (from /proc for `--server-pid`), their
/// RSS, events dropped or failed, and a check that the consoles' histories grew by exactly what was sent.
struct BenchFleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-fleet", abstract: "Benchmark consoles taking events from a fleet of reporting apps.")

    @Option(name: .customLong("console"), help: "A console's base URL (repeat for several consoles; apps are spread over them).")
    var consoles: [String]
    @Option(name: .customLong("server-pid"), help: "A console process, for its CPU time and RSS (repeat).")
    var serverPids: [Int32] = []
    @Option(help: "Apps reporting.") var apps = 1000
    @Option(help: "Devices the apps run on.") var devices = 50
    @Option(help: "Flows (40 events each) every app queues in the flat-out run.") var flows = 5
    @Option(help: "Events per second offered by the whole fleet in the steady run.") var rate = 2000
    @Option(help: "Seconds of the steady run.") var duration = 30
    @Option(help: "A bearer token for /api/ingest (a console beyond loopback, or one with named operators).") var token: String?
    @Flag(help: "The consoles share one history (count its growth once, not per console).") var sharedHistory = false

    static let eventsPerFlow = 40

    struct Run {
        var name: String
        var offered: Int
        var accepted: Int
        var dropped: Int
        var seconds: Double
        var drainSeconds: Double
        var cpuPerEvent: Double
        var rssPeakMB: Int
        var stored: Int?
        var rate: Double { seconds > 0 ? Double(accepted) / seconds : 0 }
    }

    func validate() throws {
        guard !consoles.isEmpty else { throw ValidationError("name at least one --console") }
        for console in consoles where URL(string: console)?.host == nil { throw ValidationError("--console \(console) is not a URL") }
        guard (1...100_000).contains(apps), (1...100_000).contains(devices), (1...1000).contains(flows),
            (1...1_000_000).contains(rate), (1...3600).contains(duration)
        else { throw ValidationError("--apps and --devices 1–100000, --flows 1–1000, --rate 1–1000000, --duration 1–3600") }
    }

    func run() async throws {
        let fleet = FleetOfApps(apps: apps, devices: devices, consoles: consoles.compactMap(URL.init(string:)), token: token)
        let flatOut = try await measure("flat out: \(apps) apps × \(flows) flows at once", fleet) { fleet in
            for round in 0..<flows { fleet.queueFlowOnEveryApp(round: round) }
            return apps * flows * Self.eventsPerFlow
        }
        print(Self.describe(flatOut))
        let steady = try await measure("steady: \(rate) events/s from \(apps) apps for \(duration) s", fleet) { fleet in
            try await fleet.offerSteadily(eventsPerSecond: rate, seconds: duration, round: flows)
        }
        print(Self.describe(steady))
        await fleet.finish()
        print("")
        print("| run | events offered | accepted | events/s | drained after the last was queued | console CPU per event | console RSS peak | dropped | history grew by |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for run in [flatOut, steady] { print(Self.row(run)) }
        print("")
        print("\(consoles.count) console\(consoles.count == 1 ? "" : "s"), \(apps) apps on \(devices) devices, each app an EventReporter of its own (batches of up to 500, every 200 ms).")
    }

    /// Runs `offer` (which queues events and returns how many), waits until every reporter has sent everything (or 120 s).
    func measure(_ name: String, _ fleet: FleetOfApps, offer: (FleetOfApps) async throws -> Int) async throws -> Run {
        let storedBefore = await Self.storedEvents(consoles, token: token)
        let cpuBefore = serverPids.map(BenchLiveCommand.cpuSeconds).reduce(0, +)
        let samplers = serverPids.map(RSSSampler.init(pid:))
        let sentBefore = fleet.sent, droppedBefore = fleet.dropped
        let start = ContinuousClock.now
        let offered = try await offer(fleet)
        let queued = ContinuousClock.now
        while fleet.sent - sentBefore + fleet.dropped - droppedBefore < offered, ContinuousClock.now - queued < .seconds(120) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let end = ContinuousClock.now
        let cpu = serverPids.map(BenchLiveCommand.cpuSeconds).reduce(0, +) - cpuBefore
        let rss = samplers.map { $0.stop() }.reduce(0, +)
        let accepted = fleet.sent - sentBefore
        // the consoles' batchers write within 50 ms; give them a moment before counting
        try await Task.sleep(for: .milliseconds(500))
        let storedAfter = await Self.storedEvents(consoles, token: token)
        return Run(name: name, offered: offered, accepted: accepted, dropped: fleet.dropped - droppedBefore,
            seconds: seconds(end - start), drainSeconds: seconds(end - queued),
            cpuPerEvent: serverPids.isEmpty || accepted == 0 ? 0 : cpu / Double(accepted) * 1e6, rssPeakMB: rss / 1024,
            stored: Self.growth(from: storedBefore, to: storedAfter, shared: sharedHistory))
    }

    /// How many events the histories gained in all: summed over the consoles, or once for a `shared` history (each
    /// console on it sees its whole total); `nil` when a count is missing.
    static func growth(from before: [Int?], to after: [Int?], shared: Bool) -> Int? {
        var total = 0
        for (was, now) in zip(before, after).prefix(shared ? 1 : before.count) {
            guard let was, let now else { return nil }
            total += now - was
        }
        return total
    }

    /// The events each console's history holds now (`GET /api/overview`), `nil` when it cannot tell.
    static func storedEvents(_ consoles: [String], token: String?) async -> [Int?] {
        var counts: [Int?] = []
        for console in consoles {
            guard let url = URL(string: console + "/api/overview") else { counts.append(nil); continue }
            var request = URLRequest(url: url)
            if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            let data = try? await URLSession.shared.data(for: request).0
            let json = data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            counts.append((json?["counts"] as? [String: Any])?["events"] as? Int)
        }
        return counts
    }

    static func describe(_ run: Run) -> String {
        String(format: "%@: %d of %d events accepted in %.2f s (%.0f events/s), drained %.2f s after queueing, %.1f µs console CPU/event, RSS peak %d MB, %d dropped, history grew by %@",
            run.name, run.accepted, run.offered, run.seconds, run.rate, run.drainSeconds, run.cpuPerEvent, run.rssPeakMB, run.dropped,
            run.stored.map(String.init) ?? "?")
    }

    static func row(_ run: Run) -> String {
        String(format: "| %@ | %d | %d | %.0f | %.2f s | %.1f µs | %d MB | %d | %@ |", run.name, run.offered, run.accepted, run.rate,
            run.drainSeconds, run.cpuPerEvent, run.rssPeakMB, run.dropped, run.stored.map(String.init) ?? "?")
    }
}

/// The simulated apps of ``BenchFleetCommand``: one ``EventReporter`` each, app `n` on device `n % devices`,
/// reporting to console `n % consoles`.
final class FleetOfApps: Sendable {
    struct App: Sendable {
        var identity: AppIdentity
        var device: String
        var reporter: EventReporter
    }

    let apps: [App]

    init(apps count: Int, devices: Int, consoles: [URL], token: String?) {
        let headers = token.map { ["Authorization": "Bearer \($0)"] } ?? [:]
        apps = (0..<count).map { number in
            App(identity: AppIdentity(bundleID: "com.fleet.app\(number).ios", teamID: "FLEET\(number % 20)"),
                device: "fleet-device-\(number % devices)",
                reporter: EventReporter(console: consoles[number % consoles.count], capacity: 100_000, headers: headers))
        }
    }

    var sent: Int { apps.reduce(0) { $0 + $1.reporter.sentCount } }
    var dropped: Int { apps.reduce(0) { $0 + $1.reporter.droppedCount } }

    /// One flow's 40 events on app `number` (a new session).
    func queueFlow(onApp number: Int, round: Int) {
        let app = apps[number]
        let session = UUID()
        let requestor = HistoryWorkload.requestors[number % HistoryWorkload.requestors.count]
        let mvpd = HistoryWorkload.mvpds[(number / 7 + round) % HistoryWorkload.mvpds.count]
        for step in 0..<BenchFleetCommand.eventsPerFlow {
            app.reporter.add(EntitlementEvent(sequence: step, timestamp: Date(), sessionID: session, deviceID: app.device,
                app: app.identity, requestorID: requestor, mvpdID: mvpd,
                kind: HistoryWorkload.kind(step: step, index: number &* 40 &+ step, requestor: requestor, mvpd: mvpd)))
        }
    }

    func queueFlowOnEveryApp(round: Int) {
        for number in apps.indices { queueFlow(onApp: number, round: round) }
    }

    /// Offers `eventsPerSecond` for `seconds`, a flow at a time, the apps taking turns; returns the events offered.
    func offerSteadily(eventsPerSecond: Int, seconds: Int, round: Int) async throws -> Int {
        let flows = max(1, eventsPerSecond * seconds / BenchFleetCommand.eventsPerFlow)
        let gap = Double(seconds) / Double(flows)
        let start = ContinuousClock.now
        for flow in 0..<flows {
            let due = start + .seconds(gap * Double(flow))
            if ContinuousClock.now < due { try await Task.sleep(until: due) }
            queueFlow(onApp: flow % apps.count, round: round + flow / apps.count)
        }
        return flows * BenchFleetCommand.eventsPerFlow
    }

    func finish() async {
        await withTaskGroup(of: Void.self) { group in
            for app in apps { group.addTask { await app.reporter.finish(timeout: .seconds(1)) } }
        }
    }
}
