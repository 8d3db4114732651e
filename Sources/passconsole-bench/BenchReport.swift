import Foundation

/// Timings of one client over the iterations of one flow, in milliseconds.
struct Samples: Sendable {
    private(set) var milliseconds: [Double] = []

    mutating func add(_ duration: Duration) {
        milliseconds.append(Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }

    var median: Double { percentile(0.5) }
    var p90: Double { percentile(0.9) }

    /// Linear interpolation between the closest ranks; 0 without samples.
    func percentile(_ p: Double) -> Double {
        let sorted = milliseconds.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = p * Double(sorted.count - 1)
        let low = Int(rank.rounded(.down)), high = Int(rank.rounded(.up))
        return sorted[low] + (sorted[high] - sorted[low]) * (rank - Double(low))
    }
}

/// One flow measured both ways: the SDK and the bare HTTP requests it needs.
struct FlowMeasurement: Sendable {
    var name: String
    var title: String
    var sdk = Samples()
    var bare = Samples()
    /// `--diagnose`: bare with a new URLSession (and connection) per request, as the SDK's transport does.
    var bareFreshSession: Samples?
    /// Round trips per flow (total requests / flows counted), SDK and bare.
    var sdkRoundTrips = 0.0
    var bareRoundTrips = 0.0
    /// CPU time of this process (all threads: URLSession's, the SDK's storage writer…) per timed flow, in ms: what
    /// each client costs the machine, beside how long it takes.
    var sdkCPU = 0.0
    var bareCPU = 0.0

    static let ratioTarget = 1.10

    var ratio: Double { bare.median > 0 ? sdk.median / bare.median : .infinity }
    var ratioMet: Bool { ratio <= Self.ratioTarget }
    var roundTripsMet: Bool { sdkRoundTrips <= bareRoundTrips }
}

/// What `bench-flow` prints: a Markdown table (appended to Benchmarks/results.md by run.sh) or one JSON object.
struct BenchFlowReport: Encodable {
    struct Client: Encodable {
        var iterations: Int
        var medianMs: Double
        var p90Ms: Double
        var roundTrips: Double
        var cpuMs: Double?
    }

    struct Flow: Encodable {
        var name: String
        var sdk: Client
        var bare: Client
        var bareFreshSession: Client?
        var ratio: Double
        var overheadMs: Double
        var ratioTarget: Double
        var ratioMet: Bool
        var roundTripsMet: Bool
    }

    var backend: String
    var loadAverage: [Double]
    var cores: Int
    var flows: [Flow]

    init(backend: String, flows: [FlowMeasurement], loadAverage: [Double]) {
        self.backend = backend
        self.loadAverage = loadAverage
        self.cores = ProcessInfo.processInfo.activeProcessorCount
        self.flows = flows.map { flow in
            func client(_ samples: Samples, _ roundTrips: Double, _ cpu: Double? = nil) -> Client {
                Client(iterations: samples.milliseconds.count, medianMs: Self.round(samples.median), p90Ms: Self.round(samples.p90),
                       roundTrips: roundTrips, cpuMs: cpu.map(Self.round))
            }
            return Flow(
                name: flow.name, sdk: client(flow.sdk, flow.sdkRoundTrips, flow.sdkCPU),
                bare: client(flow.bare, flow.bareRoundTrips, flow.bareCPU),
                bareFreshSession: flow.bareFreshSession.map { client($0, flow.bareRoundTrips) },
                ratio: Self.round(flow.ratio), overheadMs: Self.round(flow.sdk.median - flow.bare.median),
                ratioTarget: FlowMeasurement.ratioTarget, ratioMet: flow.ratioMet, roundTripsMet: flow.roundTripsMet)
        }
    }

    static func round(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "{}"
    }

    func markdown(_ measurements: [FlowMeasurement]) -> String {
        var lines = [
            "| Flow | Client | n | median ms | p90 ms | round trips | client CPU ms/flow |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for flow in measurements {
            var rows: [(String, Samples, Double, Double?)] = [
                ("AccessEnabler", flow.sdk, flow.sdkRoundTrips, flow.sdkCPU), ("bare URLSession", flow.bare, flow.bareRoundTrips, flow.bareCPU),
            ]
            if let fresh = flow.bareFreshSession { rows.append(("bare, new URLSession per request (diagnostic)", fresh, flow.bareRoundTrips, nil)) }
            for (client, samples, trips, cpu) in rows {
                lines.append("| \(flow.title) | \(client) | \(samples.milliseconds.count) | \(Self.format(samples.median)) | "
                    + "\(Self.format(samples.p90)) | \(Self.format(trips, digits: trips == trips.rounded() ? 0 : 2)) | "
                    + "\(cpu.map { Self.format($0) } ?? "–") |")
            }
        }
        lines.append("")
        for flow in measurements {
            let target = String(format: "%.2f", FlowMeasurement.ratioTarget)
            lines.append("- \(flow.title): SDK/bare = \(String(format: "%.2f", flow.ratio))× (median, "
                + "\(String(format: "%+.3f", flow.sdk.median - flow.bare.median)) ms; target ≤ \(target)×: "
                + "\(flow.ratioMet ? "met" : "NOT MET")); round trips \(Self.format(flow.sdkRoundTrips, digits: 2)) vs "
                + "\(Self.format(flow.bareRoundTrips, digits: 2)) (target SDK ≤ bare: \(flow.roundTripsMet ? "met" : "NOT MET")); "
                + "client CPU \(String(format: "%.2f", flow.bareCPU > 0 ? flow.sdkCPU / flow.bareCPU : 0))× the bare flow's.")
        }
        let load = loadAverage.map { String(format: "%.2f", $0) }.joined(separator: " ")
        lines.append("- \(cores) cores, load average (1/5/15 min) at the end: \(load). Interleaved per iteration, one process, "
            + "against \(backend).")
        return lines.joined(separator: "\n")
    }

    static func format(_ value: Double, digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }

    /// `/proc/loadavg`'s three averages (empty elsewhere).
    static func loadAverage() -> [Double] {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return [] }
        return text.split(separator: " ").prefix(3).compactMap { Double($0) }
    }
}
