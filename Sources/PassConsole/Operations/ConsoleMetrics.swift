import Foundation
import Locking
import MicroHTTP
import Prometheus

/// The console's metrics, read by `GET /metrics` in Prometheus' text format.
///
/// **One registry per console, not the process-wide `MetricsSystem`.** `MetricsSystem.bootstrap` may be called once
/// per process, and tests start many consoles in one process: with one global registry their counters would add up
/// and a test could not tell its console's `N` ingested events from another's. So each ``Console`` owns a
/// `PrometheusCollectorRegistry` and hands its parts the metrics they update; `/metrics` emits that registry. The
/// `passconsole serve` process (one console) additionally bootstraps `MetricsSystem` once with a
/// `PrometheusMetricsFactory` over the same registry, so a library that reports through swift-metrics' global API
/// shows in the same `/metrics`. Our metrics are made on the registry directly (with their `# HELP` text): the
/// factory makes them without help, and the registry refuses one name with two help texts.
///
/// Counters are updated where things happen (an ingest, a request); gauges of state owned elsewhere (queues, live
/// clients, the demo apps' batcher) are read when `/metrics` is scraped (``refresh(from:)``).
final class ConsoleMetrics: Sendable {
    let registry: PrometheusCollectorRegistry

    /// Events written to the history, by where they came from (`reporters`: `POST /api/ingest`; `demo_apps`).
    let ingestedFromReporters: Counter
    private let ingestedFromDemoApps: Counter
    /// Events lost before the history: reporters' full buffers and the demo apps' batcher past its bound.
    private let dropped: Counter
    /// What `refresh` last added to the counters fed from running totals (they only grow).
    private let seen = Mutex((demoApps: 0, dropped: 0, resyncs: 0))
    private let liveClients: Gauge
    private let liveResyncs: Counter
    private let batcherQueue: Gauge
    private let gateRunning: Gauge
    private let gateWaiting: Gauge
    private let liveHeld: Gauge
    private let errors: [IngestError: Counter]
    /// The request histogram's series made so far (bounded: routes × 8 methods × 5 classes).
    private let histograms = Mutex<[HistogramKey: DurationHistogram]>([:])

    /// Why an ingest (a `POST /api/ingest`) failed or lost events; one counter each.
    enum IngestError: String, CaseIterable {
        /// A line that is not an event (counted per line).
        case rejectedLine = "rejected_line"
        /// A batch with no events at all.
        case emptyBatch = "empty_batch"
        /// The history could not be written (read-only, disk full, damaged).
        case historyWrite = "history_write"
    }

    /// Upper bounds of the request latency buckets: 1 ms to 10 s.
    static let latencyBuckets: [Duration] = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000]
        .map { Duration.microseconds(Int64($0 * 1000)) }

    static var requestDuration: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "passconsole", subsystem: "http", metricName: "request_duration", unitName: "seconds",
            helpText: "Time from a request's arrival to its answer (the head, for a live feed), by route pattern, method and status class.")
    }

    init() {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        func counter(_ name: String, _ help: String, _ labels: [(String, String)] = []) -> Counter {
            registry.makeCounter(descriptor: MetricNameDescriptor(namespace: "passconsole", metricName: name, unitName: "", helpText: help), labels: labels)
        }
        func gauge(_ name: String, _ help: String, _ labels: [(String, String)] = []) -> Gauge {
            registry.makeGauge(descriptor: MetricNameDescriptor(namespace: "passconsole", metricName: name, unitName: "", helpText: help), labels: labels)
        }
        let ingestedHelp = "Events written to the history, by source (reporters: POST /api/ingest; demo_apps: the console's own apps)."
        ingestedFromReporters = counter("events_ingested_total", ingestedHelp, [("source", "reporters")])
        ingestedFromDemoApps = counter("events_ingested_total", ingestedHelp, [("source", "demo_apps")])
        dropped = counter("events_dropped_total", "Events lost before reaching the history (reporters' full buffers, the demo apps' batcher past its bound).")
        liveClients = gauge("live_clients", "Live feed (Server-Sent Events) clients connected now.")
        liveResyncs = counter("live_resyncs_total", "Live clients too slow to keep up, sent the resync notice and disconnected.")
        let queueHelp = "Items waiting in each of the console's queues now."
        batcherQueue = gauge("queue_depth", queueHelp, [("queue", "event_batcher")])
        gateRunning = gauge("queue_depth", queueHelp, [("queue", "ingest_gate_running")])
        gateWaiting = gauge("queue_depth", queueHelp, [("queue", "ingest_gate_waiting")])
        liveHeld = gauge("queue_depth", queueHelp, [("queue", "live_held")])
        let errorHelp = "Ingest requests' failures by reason (rejected_line counts lines; the others count requests)."
        errors = Dictionary(uniqueKeysWithValues: IngestError.allCases.map {
            ($0, counter("ingest_errors_total", errorHelp, [("reason", $0.rawValue)]))
        })
    }

    /// Counts `count` ingest failures of kind `reason`.
    func ingestFailed(_ reason: IngestError, count: Int = 1) {
        guard count > 0 else { return }
        errors[reason]?.increment(by: Int64(count))
    }

    /// Records one answered request: `route` is its pattern (never the raw path: bounded label values).
    func observe(route: String, method: String, status: Int, duration: Duration) {
        let key = HistogramKey(route: route, method: Self.methodLabel(method), status: "\(min(max(status / 100, 1), 5))xx")
        let histogram = histograms.withLock { cache in
            if let known = cache[key] { return known }
            // The registry validates names and labels on every make: done once per series.
            let made = registry.makeDurationHistogram(
                descriptor: Self.requestDuration, labels: [("route", key.route), ("method", key.method), ("status", key.status)],
                buckets: Self.latencyBuckets)
            cache[key] = made
            return made
        }
        histogram.recordNanoseconds(duration.nanoseconds)
    }

    private struct HistogramKey: Hashable {
        var route: String
        var method: String
        var status: String
    }

    /// A method label from a fixed set (a client may send any token as the method).
    static func methodLabel(_ method: String) -> String {
        ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"].contains(method) ? method : "other"
    }

    /// Reads the state owned by the console's parts into the gauges and running-total counters.
    func refresh(from console: Console) async {
        let batcherPending = await console.batcher.pendingCount
        let demoWritten = await console.batcher.writtenCount
        let droppedTotal = await console.droppedCount()
        let (clients, resyncs, held) = console.live.gaugeReading
        let (running, waiting) = console.ingestGate.depth
        batcherQueue.set(Int64(batcherPending))
        gateRunning.set(Int64(running))
        gateWaiting.set(Int64(waiting))
        liveHeld.set(Int64(held))
        liveClients.set(Int64(clients))
        let deltas = seen.withLock { seen in
            defer { seen = (max(seen.demoApps, demoWritten), max(seen.dropped, droppedTotal), max(seen.resyncs, resyncs)) }
            return (max(0, demoWritten - seen.demoApps), max(0, droppedTotal - seen.dropped), max(0, resyncs - seen.resyncs))
        }
        if deltas.0 > 0 { ingestedFromDemoApps.increment(by: Int64(deltas.0)) }
        if deltas.1 > 0 { dropped.increment(by: Int64(deltas.1)) }
        if deltas.2 > 0 { liveResyncs.increment(by: Int64(deltas.2)) }
    }

    /// The registry in Prometheus' text exposition format (version 0.0.4).
    func exposition() -> Response {
        Response(status: .ok, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8"), ("Cache-Control", "no-store")],
            body: .data(Data(registry.emitToBuffer())))
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled + attoseconds / 1_000_000_000
    }
}
