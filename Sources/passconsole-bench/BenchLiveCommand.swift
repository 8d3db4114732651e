import AccessEnabler
import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `passconsole-bench bench-live`: a team watching the live feed of a running `passconsole serve` — many SSE clients (half
/// filtered with `q=app:…`) while events are ingested at a steady rate — beside the same run with one client. Reports
/// whether every client got every event it matches (in order, once), commit-to-client latency, the server's CPU per
/// event (read from /proc for `--server-pid`) and its RSS at start, peak and end.
///
/// Several consoles on one shared history (PostgreSQL): repeat `--console` and `--server-pid`; `--clients` then
/// watch each console, the POSTs take turns over the consoles (each event reaches the other consoles' clients
/// through the database's notifications), and `--postgres-pid` (the postmaster) adds the cluster's CPU per event.
struct BenchLiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-live", abstract: "Benchmark the console's live feed with many SSE clients during a steady ingest.")

    @Option(name: .customLong("console"), help: "A console's base URL (repeat for several consoles on one shared history).")
    var consoles: [String]
    @Option(name: .customLong("server-pid"), help: "A console process, for its CPU time and RSS (repeat, in the order of --console).")
    var serverPids: [Int32]
    @Option(help: "The PostgreSQL postmaster the consoles share, for the cluster's CPU time (its backends' included).")
    var postgresPid: Int32?
    @Option(help: "SSE clients per console in the main run (half of them filtered).") var clients = 100
    @Option(help: "Events ingested per second.") var rate = 500
    @Option(help: "Seconds of ingest per run.") var duration = 60
    @Option(help: "Events per POST /api/ingest (one commit each).") var batch = 25

    static let latencyTargetMs = 250.0
    static let cpuRatioTarget = 3.0

    struct Run {
        var consoles: Int
        var clients: Int
        var events: Int
        var complete: Int
        var inOrder: Int
        var p50: Double, p99: Double, max: Double
        var cpuPerEvent: Double
        /// The PostgreSQL cluster's CPU per event (`nil` without `--postgres-pid`).
        var postgresCPUPerEvent: Double?
        var rss: (start: Int, peak: Int, end: Int)
        var resyncs: Int
        var drainSeconds: Double
    }

    func validate() throws {
        guard !consoles.isEmpty, consoles.count == serverPids.count else {
            throw ValidationError("name one --server-pid for every --console (at least one)")
        }
        guard (1...10_000).contains(clients), (1...100_000).contains(rate), (1...3600).contains(duration), (1...1000).contains(batch) else {
            throw ValidationError("--clients 1–10000, --rate 1–100000, --duration 1–3600, --batch 1–1000")
        }
    }

    func run() async throws {
        let ports = try consoles.map { console in
            guard let port = URLComponents(string: console)?.port.flatMap(UInt16.init(exactly:)) else {
                throw ValidationError("--console \(console) needs a port")
            }
            return port
        }
        let one = try await measure(ports: Array(ports.prefix(1)), phase: 1, clients: 1)
        print(Self.describe(one))
        let many = try await measure(ports: ports, phase: 2, clients: clients)
        print(Self.describe(many))
        let ratio = many.cpuPerEvent / max(one.cpuPerEvent, 0.001)
        let complete = many.complete == many.clients && many.inOrder == many.clients
        print(String(format: "CPU per event per console, %d clients / 1 client: %.2f×", clients, ratio))
        print("")
        print("| run | clients complete (in order, once) | POST sent → client p50 / p99 / max | server CPU per event (per console) | PostgreSQL CPU per event | server RSS start / peak / end | resyncs | all delivered after ingest stopped |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for run in [one, many] { print(Self.row(run, rate: rate, duration: duration)) }
        print("")
        let watching = consoles.count == 1 ? "\(clients) clients" : "\(consoles.count) consoles × \(clients) clients"
        print(String(format: "Targets (%@, half filtered, %d events/s for %d s): every client complete: %@; p99 < %.0f ms: %@ (%.1f ms); CPU per event ≤ %.0f× the one-client run: %@ (%.2f×).",
            watching, rate, duration, complete ? "met" : "NOT met", Self.latencyTargetMs, many.p99 < Self.latencyTargetMs ? "met" : "NOT met",
            many.p99, Self.cpuRatioTarget, ratio <= Self.cpuRatioTarget ? "met" : "NOT met", ratio))
    }

    static func describe(_ run: Run) -> String {
        String(format: "%d console(s), %d clients: %d/%d complete and in order, p50 %.1f ms, p99 %.1f ms, max %.1f ms, %.1f µs server CPU/event per console, %@ PostgreSQL CPU/event, RSS %d/%d/%d MB, %d resyncs, drained %.2f s after ingest",
            run.consoles, run.clients, min(run.complete, run.inOrder), run.clients, run.p50, run.p99, run.max, run.cpuPerEvent,
            run.postgresCPUPerEvent.map { String(format: "%.1f µs", $0) } ?? "no", run.rss.start / 1024, run.rss.peak / 1024, run.rss.end / 1024,
            run.resyncs, run.drainSeconds)
    }

    static func row(_ run: Run, rate: Int, duration: Int) -> String {
        let who = run.consoles == 1
            ? "\(run.clients) client\(run.clients == 1 ? "" : "s (half filtered)")"
            : "\(run.consoles) consoles × \(run.clients / run.consoles) clients (half filtered)"
        return String(format: "| %@, %d events/s × %d s (%d events) | %d / %d | %.1f / %.1f / %.1f ms | %.1f µs | %@ | %d / %d / %d MB | %d | %.2f s |",
            who, rate, duration, run.events, min(run.complete, run.inOrder), run.clients,
            run.p50, run.p99, run.max, run.cpuPerEvent, run.postgresCPUPerEvent.map { String(format: "%.1f µs", $0) } ?? "—",
            run.rss.start / 1024, run.rss.peak / 1024, run.rss.end / 1024, run.resyncs, run.drainSeconds)
    }

    /// One run: `clients` connect to each console (odd ones filtered to app A), `rate` events/s for `duration` s
    /// alternate apps A and B, POSTed to the consoles in turn.
    func measure(ports: [UInt16], phase: Int, clients perConsole: Int) async throws -> Run {
        let appA = AppIdentity(bundleID: "com.bench.live\(phase).a", teamID: "LIVE"), appB = AppIdentity(bundleID: "com.bench.live\(phase).b", teamID: "LIVE")
        let targets = ports.flatMap { port in
            (0..<perConsole).map { (port: port, path: $0 % 2 == 1 ? "/api/events/stream?q=app:\(appA.bundleID)" : "/api/events/stream") }
        }
        let clients = targets.count
        let pids = Array(serverPids.prefix(ports.count))
        let sampler = RSSSampler(pid: pids[0])
        let rssStart = sampler.current()
        let fleet = SSEFleet(targets: targets)
        try fleet.start()
        defer { fleet.stop() }
        let openBy = ContinuousClock.now + .seconds(20)
        while !fleet.allOpen, ContinuousClock.now < openBy { try await Task.sleep(for: .milliseconds(20)) }
        guard fleet.allOpen else { throw BenchFailure("not every live client connected") }

        let cpuBefore = pids.map(Self.cpuSeconds).reduce(0, +)
        let postgresBefore = postgresPid.map(Self.clusterCPUSeconds)
        let sessions = [UUID(), UUID()]
        let total = rate * duration
        var sent: [Double] = Array(repeating: 0, count: total)
        let urls = consoles.prefix(ports.count).map { URL(string: $0 + "/api/ingest")! }
        let interval = Double(batch) / Double(rate)
        let start = ContinuousClock.now
        for (index, first) in stride(from: 0, to: total, by: batch).enumerated() {
            let due = start + .seconds(interval * Double(index))
            if ContinuousClock.now < due { try await Task.sleep(until: due) }
            let events = (first..<min(first + batch, total)).map { seq in
                EntitlementEvent(sequence: seq / 2 + 1, timestamp: Date(), sessionID: sessions[seq % 2], deviceID: "bench-live",
                    app: seq % 2 == 0 ? appA : appB, requestorID: "REF30", mvpdID: nil, kind: .apiCall(name: "lb\(seq)", arguments: [:]))
            }
            var request = URLRequest(url: urls[index % urls.count])
            request.httpMethod = "POST"
            request.setValue("application/x-ndjson", forHTTPHeaderField: "Content-Type")
            request.httpBody = try EntitlementEvent.Wire.ndjson(events)
            let at = fleet.now()
            for seq in first..<min(first + batch, total) { sent[seq] = at }
            let (_, response) = try await URLSession.shared.data(for: request)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw BenchFailure("ingest answered \(response)") }
        }
        let ingestEnded = ContinuousClock.now
        // Every client complete, or 30 s.
        let expectedA = (total + 1) / 2
        func done() -> Bool {
            fleet.snapshot().enumerated().allSatisfy { index, client in
                Set(client.received.map(\.seq)).count >= (index % perConsole % 2 == 1 ? expectedA : total)
            }
        }
        while !done(), ContinuousClock.now - ingestEnded < .seconds(30) { try await Task.sleep(for: .milliseconds(20)) }
        let drain = seconds(ContinuousClock.now - ingestEnded)
        let cpu = pids.map(Self.cpuSeconds).reduce(0, +) - cpuBefore
        let postgresCPU = postgresPid.map(Self.clusterCPUSeconds).map { $0 - (postgresBefore ?? 0) }
        let snapshot = fleet.snapshot()
        fleet.stop()
        try await Task.sleep(for: .milliseconds(500))
        let rss = (rssStart, sampler.stop(), sampler.current())

        var latencies: [Double] = []
        latencies.reserveCapacity(snapshot.count * total)
        var complete = 0, inOrder = 0, resyncs = 0
        for (index, client) in snapshot.enumerated() {
            let expected = index % perConsole % 2 == 1 ? Array(stride(from: 0, to: total, by: 2)) : Array(0..<total)
            let seqs = client.received.map(\.seq)
            if Set(seqs) == Set(expected) {
                complete += 1
            } else {
                let missing = Set(expected).subtracting(seqs).sorted()
                FileHandle.standardError.write(Data("client \(index): \(seqs.count) received, \(Set(seqs).count) distinct, \(missing.count) missing (first: \(missing.prefix(10))), \(client.reconnects) reconnects\n".utf8))
            }
            let ids = client.received.map(\.id)
            if seqs == expected, zip(ids, ids.dropFirst()).allSatisfy({ $0 < $1 }) { inOrder += 1 }
            resyncs += client.resyncs
            for record in client.received where record.seq < total { latencies.append((record.at - sent[record.seq]) * 1000) }
        }
        latencies.sort()
        let pick = { (p: Double) in latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(p * Double(latencies.count - 1)))] }
        return Run(consoles: ports.count, clients: clients, events: total, complete: complete, inOrder: inOrder, p50: pick(0.5), p99: pick(0.99),
            max: latencies.last ?? 0, cpuPerEvent: cpu / Double(total) / Double(ports.count) * 1e6,
            postgresCPUPerEvent: postgresCPU.map { $0 / Double(total) * 1e6 }, rss: rss, resyncs: resyncs, drainSeconds: drain)
    }

    /// CPU seconds of a PostgreSQL cluster so far: the postmaster's own and its reaped children's (backends that
    /// ended), plus those of its running children (every connection's backend, the WAL writer, …).
    static func clusterCPUSeconds(_ postmaster: Int32) -> Double {
        func fields(_ pid: String) -> [Substring]? {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
            return stat[stat.index(after: close)...].split(separator: " ")
        }
        var ticks = 0.0
        // After "pid (comm)": ppid is field 1, utime 11, stime 12, cutime 13, cstime 14.
        if let own = fields(String(postmaster)), own.count > 14 { ticks += [11, 12, 13, 14].compactMap { Double(own[$0]) }.reduce(0, +) }
        for pid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int32(pid) != nil {
            guard let child = fields(pid), child.count > 12, Int32(child[1]) == postmaster else { continue }
            ticks += [11, 12].compactMap { Double(child[$0]) }.reduce(0, +)
        }
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// User + system CPU seconds of process `pid` so far.
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After "pid (comm)": state is field 0, utime 11, stime 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// The peak RSS of a process, sampled every 100 ms from /proc on a thread of its own.
final class RSSSampler: @unchecked Sendable {
    private let pid: Int32
    private let lock = NSLock()
    private var peak = 0
    private var running = true

    init(pid: Int32) {
        self.pid = pid
        peak = current()
        Thread { [self] in
            while lock.withLock({ running }) {
                let now = current()
                lock.withLock { peak = max(peak, now) }
                usleep(100_000)
            }
        }.start()
    }

    /// The process's RSS now, in kB.
    func current() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Stops sampling; returns the peak in kB.
    func stop() -> Int {
        lock.withLock {
            running = false
            return peak
        }
    }
}
