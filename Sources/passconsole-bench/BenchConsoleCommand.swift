import AccessEnabler
import ArgumentParser
import Foundation
import GRDB
import Logging
import PassCommandLine
import PassConsole
import PassHistory
import PassStorage

/// `passconsole-bench bench-console`: the console's history measured against its targets, each beside a baseline run in
/// the same process — SQLite ingest (events/s, batched) vs bare prepared inserts of the same rows into the same table
/// with the same indexes (and, for scale, without any); history page queries at 1M events; Server-Sent Events latency
/// from a stored event to a connected client.
struct BenchConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-console", abstract: "Benchmark the console's history: ingest, page queries, live-feed latency.")

    @Option(help: "Events written by the ingest benchmark.") var ingestEvents = 200_000
    @Option(help: "Events in the history for the query benchmark.") var historyEvents = 1_000_000
    @Option(help: "Events per batch (what the console's batcher writes).") var batch = 500
    @Option(help: "Rounds the ingest runs take turns in (ours and the SQLite-alone baselines).") var ingestRounds = 6
    @Option(help: "Runs per query.") var queryRuns = 50
    @Option(help: "Events timed through the live feed.") var liveEvents = 200
    @Option(help: "Folder for the databases (default: a new temporary folder, removed afterwards).") var folder: String?
    @Option(help: ArgumentHelp("Measure a PostgreSQL history instead (postgres://user@host:port/database, an empty database): "
        + "its ingest through append, and the same pages and live feed.", valueName: "postgres-url"))
    var history: String?
    @Option(help: ArgumentHelp("PostgreSQL only: events written through append before the rest of --history-events are "
        + "copies of them made in the database (new IDs, sessions and times; see BenchConsolePostgres).", valueName: "count"))
    var appendEvents: Int?

    static let ingestTarget = 100_000.0
    static let queryTargetMs = 20.0
    static let liveTargetMs = 50.0

    func validate() throws {
        guard ingestEvents > 0, historyEvents >= 0, batch > 0, ingestRounds > 0, queryRuns > 0, liveEvents > 0 else {
            throw ValidationError("the counts must be positive")
        }
        if let appendEvents, appendEvents < 1 || history == nil { throw ValidationError("--append-events takes a positive count, with --history") }
    }

    func run() async throws {
        let root = folder.map { URL(filePath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("bench-console-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { if folder == nil { try? FileManager.default.removeItem(at: root) } }
        var lines = ["| measurement | ours | baseline | ratio | target |", "| --- | --- | --- | --- | --- |"]
        if let history {
            guard case .postgres(let location) = try HistoryLocation(option: history) else {
                throw ValidationError("--history takes a postgres:// URL (SQLite is measured without it)")
            }
            try await runPostgres(location, root: root, lines: &lines)
            return
        }

        // 1. Ingest: HistoryDatabase.append in batches (encoding included) vs bare prepared INSERTs of the same rows
        //    encoded beforehand.
        var workload = HistoryWorkload()
        let events = workload.next(ingestEvents)
        let history = try HistoryDatabase(path: root.appendingPathComponent("history.sqlite").path)
        // Warm-up outside the timing (first-use costs: caches, type metadata, file growth).
        let warmup = workload.next(2000)
        _ = try await BareEventTable(warmup, path: root.appendingPathComponent("warmup.sqlite").path, indexes: "").insert(warmup.indices, batch: batch)
        // Ours and the two baselines take turns over `ingestRounds` slices of the events (the order rotating each
        // round), so load that comes and goes on the machine weighs on all three alike: measured one after the
        // other, a loaded run once read 0.45× where quiet ones read 0.62–0.64×.
        let bareTable = try await BareEventTable(events, path: root.appendingPathComponent("bare.sqlite").path,
            indexes: HistoryDatabase.eventIndexes + HistoryDatabase.eventDeviceAppIndexes)
        let plainTable = try await BareEventTable(events, path: root.appendingPathComponent("bare-plain.sqlite").path, indexes: "")
        var ours = 0.0, bare = 0.0, plain = 0.0, ourCPU = 0.0, bareCPU = 0.0, plainCPU = 0.0
        let rounds = max(1, min(ingestRounds, events.count / batch))
        let turns = 3
        for round in 0..<rounds {
            let slice = (events.count * round / rounds)..<(events.count * (round + 1) / rounds)
            for turn in 0..<turns {
                let cpu = Self.processCPUSeconds()
                switch (turn + round) % turns {
                case 0:
                    ours += try await Self.time {
                        for start in stride(from: slice.lowerBound, to: slice.upperBound, by: batch) {
                            try await history.append(Array(events[start..<min(start + batch, slice.upperBound)]))
                        }
                    }
                    ourCPU += Self.processCPUSeconds() - cpu
                case 1:
                    bare += try await bareTable.insert(slice, batch: batch)
                    bareCPU += Self.processCPUSeconds() - cpu
                default:
                    plain += try await plainTable.insert(slice, batch: batch)
                    plainCPU += Self.processCPUSeconds() - cpu
                }
            }
        }
        let ourCPUPerEvent = ourCPU / Double(events.count) * 1e6
        let bareCPUPerEvent = bareCPU / Double(events.count) * 1e6
        let plainCPUPerEvent = plainCPU / Double(events.count) * 1e6
        let ourRate = Double(events.count) / ours, bareRate = Double(events.count) / bare, plainRate = Double(events.count) / plain
        print(String(format: "ingest: %.0f events/s, %.1f µs CPU/event (SQLite alone, same table and indexes: %.0f events/s, %.1f µs CPU/event), batch %d",
            ourRate, ourCPUPerEvent, bareRate, bareCPUPerEvent, batch))
        lines.append("| SQLite ingest, batches of \(batch) | \(Int(ourRate)) events/s, "
            + String(format: "%.1f", ourCPUPerEvent) + " µs CPU/event (encoding included) | \(Int(bareRate)) events/s, "
            + String(format: "%.1f", bareCPUPerEvent) + " µs CPU/event (SQLite alone: pre-encoded rows into the same event table, same indexes) | "
            + String(format: "%.2f", ourRate / bareRate) + " | ≥ \(Int(Self.ingestTarget)) events/s: \(ourRate >= Self.ingestTarget ? "met" : "NOT met") |")
        print(String(format: "ingest, SQLite alone into the table without indexes: %.0f events/s, %.1f µs CPU/event", plainRate, plainCPUPerEvent))
        lines.append("| SQLite ingest into the event table without indexes, batches of \(batch) | \(Int(ourRate)) events/s (ours, above) | "
            + "\(Int(plainRate)) events/s, " + String(format: "%.1f", plainCPUPerEvent)
            + " µs CPU/event (pre-encoded rows, no index: the floor) | " + String(format: "%.2f", ourRate / plainRate) + " | — |")

        // 2. Page queries at `historyEvents` events.
        var remaining = historyEvents - (try await history.eventCount)
        while remaining > 0 {
            let chunk = workload.next(min(5000, remaining))
            try await history.append(chunk)
            remaining -= chunk.count
        }
        try await history.optimize()  // what the console's maintenance does every minute
        try await pagesAndLive(history, root: root, lines: &lines)
        print("\n" + lines.joined(separator: "\n"))
    }

    /// The page queries (section 2) and the live feed (section 3) on a filled history, SQLite or PostgreSQL.
    func pagesAndLive(_ history: any EventHistory, root: URL, lines: inout [String]) async throws {
        let total = try await history.eventCount
        print("history holds \(total) events")
        let queries: [(String, HistoryFilter)] = [
            ("newest page, no filter", HistoryFilter()),
            ("programmer:REF30 event:callback", HistoryFilter(requestorID: "REF30", kinds: [.callback])),
            ("status:4xx", { var f = HistoryFilter(); f.httpStatus = .clientError; return f }()),
            ("text \"not authorized\"", HistoryFilter(text: "not authorized")),
            ("one session", HistoryFilter(sessionID: try await history.sessions().first?.id)),
            ("app:com.example.app7.ios", { var f = HistoryFilter(); f.bundleID = "com.example.app7.ios"; return f }()),
            ("device:device-42", HistoryFilter(deviceID: "device-42")),
        ]
        for (name, filter) in queries {
            var samples: [Double] = []
            // What GET /api/events reads: the rows with their stored JSON, no decoding.
            for _ in 0..<queryRuns { samples.append(try await Self.time { _ = try await history.rawPage(matching: filter, limit: 200) } * 1000) }
            let (p50, p99) = (Self.percentile(samples, 0.5), Self.percentile(samples, 0.99))
            print(String(format: "page (200 events) %@: p50 %.2f ms, p99 %.2f ms", name, p50, p99))
            lines.append(String(format: "| page of 200 at %dk events%@: %@ | p50 %.2f ms, p99 %.2f ms | — | — | < %.0f ms: %@ |",
                total / 1000, history is HistoryDatabase ? "" : " (PostgreSQL)", name, p50, p99, Self.queryTargetMs, p99 < Self.queryTargetMs ? "met" : "NOT met"))
        }

        // 3. Live feed: a stored event to an SSE client connected to a running console.
        var configuration = ConsoleConfiguration(device: DeviceFolder(root: root.appendingPathComponent("device")))
        configuration.port = 0
        // Keep every event: with the default retention (1M) the console's first maintenance pass pruned a 10M
        // history, and the live events waited 5 minutes behind that delete.
        configuration.retention.maxEvents = max(configuration.retention.maxEvents, historyEvents + ingestEvents + liveEvents)
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let console = Console(configuration: configuration, history: history, logger: logger)
        try await console.prepare()  // the named operators: on PostgreSQL a console that did not read them lets no one in
        try console.start()
        let port = UInt16(URLComponents(string: console.baseURL)?.port ?? 0)
        let probe = try SSEProbe(port: port, path: "/api/events/stream?q=app:com.bench.live")
        guard probe.waitFor("retry:", timeout: .seconds(5)) else { throw ValidationError("the live feed did not open") }
        var latencies: [Double] = []
        let session = UUID()
        for i in 0..<liveEvents {
            let event = EntitlementEvent(sequence: i, timestamp: Date(), sessionID: session, deviceID: "d",
                app: AppIdentity(bundleID: "com.bench.live", teamID: "B"), requestorID: "REF30", mvpdID: nil,
                kind: .apiCall(name: "live\(i)", arguments: [:]))
            let sent = ContinuousClock.now
            try await history.append([event])
            guard probe.waitFor("call live\(i)()", timeout: .seconds(5)) else { throw ValidationError("live event \(i) never arrived") }
            latencies.append(Self.milliseconds(ContinuousClock.now - sent))
        }
        await console.shutdown()
        let (p50, p99) = (Self.percentile(latencies, 0.5), Self.percentile(latencies, 0.99))
        print(String(format: "live feed: stored event → SSE client p50 %.2f ms, p99 %.2f ms", p50, p99))
        lines.append(String(format: "| live feed: stored event → browser (SSE), %d events | p50 %.2f ms, p99 %.2f ms | — | — | p99 < %.0f ms: %@ |",
            liveEvents, p50, p99, Self.liveTargetMs, p99 < Self.liveTargetMs ? "met" : "NOT met"))
    }

    /// The same rows, encoded beforehand, written with one cached prepared `INSERT` per row in one transaction per
    /// batch, into the history's event table (with `indexes`) without its session bookkeeping: what SQLite alone costs.
    /// User + system CPU time of the whole process so far (all threads: the encoder's too), in seconds.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let seconds = { (time: timeval) in Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    static func time(_ work: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await work()
        return milliseconds(ContinuousClock.now - start) / 1000
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))]
    }
}

/// A plain-socket Server-Sent Events client: reads the stream on its own thread and lets the caller wait for text.
final class SSEProbe: @unchecked Sendable {
    private let fd: Int32
    private let lock = NSCondition()
    private var received = ""

    init(port: UInt16, path: String) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw ValidationError("cannot connect to the console on port \(port)") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = recv(fd, &chunk, chunk.count, 0)
                if count < 0, errno == EINTR { continue }  // a signal, not the end of the stream
                guard count > 0 else { return }
                lock.lock()
                received += String(decoding: chunk[0..<count], as: UTF8.self)
                if received.count > 1 << 20 { received = String(received.suffix(4096)) }
                lock.broadcast()
                lock.unlock()
            }
        }.start()
    }

    deinit { close(fd) }

    /// Waits until the stream has carried `text`; forgets everything up to it.
    func waitFor(_ text: String, timeout: Duration) -> Bool {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let range = received.range(of: text) {
                received = String(received[range.upperBound...])
                return true
            }
            guard lock.wait(until: deadline) else { return false }
        }
    }
}

/// The ingest baseline, "SQLite alone": the same rows as the history stores them (schema v7: the event's view under
/// its ID, the time in seconds since 2001), encoded before any clock starts, written with prepared INSERTs through
/// GRDB's async write into the same event table — with the history's indexes, the ratio is the history's overhead
/// (its encoding, duplicate check and sessions) over SQLite storing the same rows; without them, the floor.
struct BareEventTable {
    let pool: DatabasePool
    let rows: [(event: EntitlementEvent, payload: String, summary: String, status: Int?, sessionKey: Int)]

    init(_ events: [EntitlementEvent], path: String, indexes: String) async throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        pool = try DatabasePool(path: path, configuration: configuration)
        try await pool.write { db in
            try db.execute(sql: """
                CREATE TABLE event (id INTEGER PRIMARY KEY, sessionKey INTEGER NOT NULL, sequence INTEGER NOT NULL,
                timestamp REAL NOT NULL, kind TEXT NOT NULL, requestorID TEXT, mvpdID TEXT, httpStatus INTEGER,
                summary TEXT NOT NULL, payload TEXT NOT NULL, deviceID TEXT, bundleID TEXT)
                """)
            if !indexes.isEmpty { try db.execute(sql: indexes) }
        }
        var keys: [UUID: Int] = [:]
        for event in events where keys[event.sessionID] == nil { keys[event.sessionID] = keys.count + 1 }
        rows = events.enumerated().map { offset, event in
            var status: Int?
            if case .httpExchange(let exchange) = event.kind { status = exchange.status ?? 0 }
            return (event, EventView.json(of: event, id: Int64(offset + 1)), event.summary, status, keys[event.sessionID]!)
        }
    }

    /// Inserts the rows of `range` in batches of `batch`; returns the seconds it took.
    func insert(_ range: Range<Int>, batch: Int) async throws -> Double {
        let rows = self.rows
        return try await BenchConsoleCommand.time {
            for start in stride(from: range.lowerBound, to: range.upperBound, by: batch) {
                let slice = start..<min(start + batch, range.upperBound)
                try await pool.write { db in
                    let statement = try db.cachedStatement(sql: """
                        INSERT INTO event (id, sessionKey, sequence, timestamp, kind, requestorID, mvpdID, httpStatus, summary, payload, deviceID, bundleID)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                    for index in slice {
                        let row = rows[index]
                        let arguments: StatementArguments = [
                            index + 1, row.sessionKey, row.event.sequence, row.event.timestamp.timeIntervalSinceReferenceDate,
                            EventKind(row.event.kind).rawValue, row.event.requestorID, row.event.mvpdID, row.status, row.summary, row.payload,
                            row.event.deviceID, row.event.app.bundleID,
                        ]
                        try statement.execute(arguments: arguments)
                    }
                }
            }
        }
    }
}
