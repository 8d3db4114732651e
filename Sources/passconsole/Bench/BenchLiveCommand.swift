import AccessEnabler
import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `passconsole bench-live`: a team watching the live feed of a running `passconsole serve` — many SSE clients (half
/// filtered with `q=app:…`) while events are ingested at a steady rate — beside the same run with one client. Reports
/// whether every client got every event it matches (in order, once), commit-to-client latency, the server's CPU per
/// event (read from /proc for `--server-pid`) and its RSS at start, peak and end.
struct BenchLiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-live", abstract: "Benchmark the console's live feed with many SSE clients during a steady ingest.")

    @Option(help: "The console's base URL.") var console: String
    @Option(help: "The console process (for its CPU time and RSS).") var serverPid: Int32
    @Option(help: "SSE clients in the main run (half of them filtered).") var clients = 100
    @Option(help: "Events ingested per second.") var rate = 500
    @Option(help: "Seconds of ingest per run.") var duration = 60
    @Option(help: "Events per POST /api/ingest (one commit each).") var batch = 25

    static let latencyTargetMs = 250.0
    static let cpuRatioTarget = 3.0

    struct Run {
        var clients: Int
        var events: Int
        var complete: Int
        var inOrder: Int
        var p50: Double, p99: Double, max: Double
        var cpuPerEvent: Double
        var rss: (start: Int, peak: Int, end: Int)
        var resyncs: Int
        var drainSeconds: Double
    }

    func run() async throws {
        guard let port = URLComponents(string: console)?.port.flatMap(UInt16.init(exactly:)) else {
            throw ValidationError("--console needs a port")
        }
        let one = try await measure(port: port, phase: 1, clients: 1)
        print(Self.describe(one))
        let many = try await measure(port: port, phase: 2, clients: clients)
        print(Self.describe(many))
        let ratio = many.cpuPerEvent / max(one.cpuPerEvent, 0.001)
        let complete = many.complete == many.clients && many.inOrder == many.clients
        print(String(format: "CPU per event, %d clients / 1 client: %.2f×", clients, ratio))
        print("")
        print("| run | clients complete (in order, once) | POST sent → client p50 / p99 / max | server CPU per event | server RSS start / peak / end | resyncs | all delivered after ingest stopped |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for run in [one, many] { print(Self.row(run, rate: rate, duration: duration)) }
        print("")
        print(String(format: "Targets (%d clients, half filtered, %d events/s for %d s): every client complete: %@; p99 < %.0f ms: %@ (%.1f ms); CPU per event ≤ %.0f× the one-client run: %@ (%.2f×).",
            clients, rate, duration, complete ? "met" : "NOT met", Self.latencyTargetMs, many.p99 < Self.latencyTargetMs ? "met" : "NOT met",
            many.p99, Self.cpuRatioTarget, ratio <= Self.cpuRatioTarget ? "met" : "NOT met", ratio))
    }

    static func describe(_ run: Run) -> String {
        String(format: "%d clients: %d/%d complete and in order, p50 %.1f ms, p99 %.1f ms, max %.1f ms, %.1f µs server CPU/event, RSS %d/%d/%d MB, %d resyncs, drained %.2f s after ingest",
            run.clients, min(run.complete, run.inOrder), run.clients, run.p50, run.p99, run.max, run.cpuPerEvent,
            run.rss.start / 1024, run.rss.peak / 1024, run.rss.end / 1024, run.resyncs, run.drainSeconds)
    }

    static func row(_ run: Run, rate: Int, duration: Int) -> String {
        String(format: "| %d client%@, %d events/s × %d s (%d events) | %d / %d | %.1f / %.1f / %.1f ms | %.1f µs | %d / %d / %d MB | %d | %.2f s |",
            run.clients, run.clients == 1 ? "" : "s (half filtered)", rate, duration, run.events, min(run.complete, run.inOrder), run.clients,
            run.p50, run.p99, run.max, run.cpuPerEvent, run.rss.start / 1024, run.rss.peak / 1024, run.rss.end / 1024, run.resyncs, run.drainSeconds)
    }

    /// One run: `clients` connect (odd ones filtered to app A), `rate` events/s for `duration` s alternate apps A and B.
    func measure(port: UInt16, phase: Int, clients: Int) async throws -> Run {
        let appA = AppIdentity(bundleID: "com.bench.live\(phase).a", teamID: "LIVE"), appB = AppIdentity(bundleID: "com.bench.live\(phase).b", teamID: "LIVE")
        let paths = (0..<clients).map { $0 % 2 == 1 ? "/api/events/stream?q=app:\(appA.bundleID)" : "/api/events/stream" }
        let sampler = RSSSampler(pid: serverPid)
        let rssStart = sampler.current()
        let fleet = SSEFleet(port: port, paths: paths)
        try fleet.start()
        defer { fleet.stop() }
        let openBy = ContinuousClock.now + .seconds(20)
        while !fleet.allOpen, ContinuousClock.now < openBy { try await Task.sleep(for: .milliseconds(20)) }
        guard fleet.allOpen else { throw BenchFailure("not every live client connected") }

        let cpuBefore = Self.cpuSeconds(serverPid)
        let sessions = [UUID(), UUID()]
        let total = rate * duration
        var sent: [Double] = Array(repeating: 0, count: total)
        let url = URL(string: console + "/api/ingest")!
        let interval = Double(batch) / Double(rate)
        let start = ContinuousClock.now
        for (index, first) in stride(from: 0, to: total, by: batch).enumerated() {
            let due = start + .seconds(interval * Double(index))
            if ContinuousClock.now < due { try await Task.sleep(until: due) }
            let events = (first..<min(first + batch, total)).map { seq in
                EntitlementEvent(sequence: seq / 2 + 1, timestamp: Date(), sessionID: sessions[seq % 2], deviceID: "bench-live",
                    app: seq % 2 == 0 ? appA : appB, requestorID: "REF30", mvpdID: nil, kind: .apiCall(name: "lb\(seq)", arguments: [:]))
            }
            var request = URLRequest(url: url)
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
            fleet.snapshot().enumerated().allSatisfy { index, client in Set(client.received.map(\.seq)).count >= (index % 2 == 1 ? expectedA : total) }
        }
        while !done(), ContinuousClock.now - ingestEnded < .seconds(30) { try await Task.sleep(for: .milliseconds(20)) }
        let drain = seconds(ContinuousClock.now - ingestEnded)
        let cpu = Self.cpuSeconds(serverPid) - cpuBefore
        let snapshot = fleet.snapshot()
        fleet.stop()
        try await Task.sleep(for: .milliseconds(500))
        let rss = (rssStart, sampler.stop(), sampler.current())

        var latencies: [Double] = []
        latencies.reserveCapacity(snapshot.count * total)
        var complete = 0, inOrder = 0, resyncs = 0
        for (index, client) in snapshot.enumerated() {
            let expected = index % 2 == 1 ? Array(stride(from: 0, to: total, by: 2)) : Array(0..<total)
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
        return Run(clients: clients, events: total, complete: complete, inOrder: inOrder, p50: pick(0.5), p99: pick(0.99),
            max: latencies.last ?? 0, cpuPerEvent: cpu / Double(total) * 1e6, rss: rss, resyncs: resyncs, drainSeconds: drain)
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
