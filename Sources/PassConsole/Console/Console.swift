import AccessEnabler
import Foundation
import Logging
import MicroHTTP
import PassHistory
import PassProxy
import PassProtocol
import PassStorage
import Prometheus
import Locking

/// The console: the JSON API and live feed over the event history and the device's token storage, the page's
/// static files, and the demo apps running inside it.
///
/// ```swift
/// let console = try Console(configuration: configuration, history: HistoryDatabase(path: "history.sqlite"), logger: logger)
/// try await console.prepare()   // needed on PostgreSQL: reads the named operators before serving
/// try console.start()
/// console.addApp(spec, serviceProvider: backendURL)   // a simulated app on the demo device
/// ```
///
/// Routes are answered by ``respond(to:)`` (in-process in tests, through libmicrohttpd once started); every request
/// passes the ``AccessGuard`` first.
public final class Console: HTTPResponder, Sendable {
    /// Where the console listens, the device folders it shows, its limits and access rules.
    public let configuration: ConsoleConfiguration
    /// The event history every page reads and the demo apps and `/api/ingest` write: SQLite (``HistoryDatabase``) or a
    /// team's PostgreSQL (`PostgresHistory`). The console calls only ``EventHistory``'s methods on it.
    public let history: any EventHistory
    /// The same history when it is SQLite, for what only a file has: `quick_check`, `optimize`, its path, the
    /// synchronous read of the operators; `nil` on PostgreSQL.
    public let sqlite: HistoryDatabase?
    let logger: Logger
    let accessGuard: AccessGuard
    /// The live feeds open now, judged again at every refresh of the operators.
    let openFeeds = OpenFeedWatch()
    let startedAt = Date()
    /// Batches the demo apps' events into the history, off their threads; keeps and retries them while the history
    /// cannot be written.
    let batcher: EventBatcher
    /// The history's health: the latest check and failed write, for the overview's banner and the API's errors.
    let health: HistoryHealth
    /// Ingests that parse and store at once (see ``IngestGate``).
    let ingestGate = IngestGate()
    /// What `GET /metrics` reports (one registry per console: see ``ConsoleMetrics``).
    let metrics = ConsoleMetrics()
    /// The registry `GET /metrics` emits, for a process that bootstraps swift-metrics' global system with it.
    public var metricsRegistry: PrometheusCollectorRegistry { metrics.registry }
    /// The one live feed every SSE client shares.
    public let live: LiveFeed
    let catalog: Catalog
    /// Keys the stand-ins of personal data in exports (``PersonalDataRedaction``): one value gives one stand-in in
    /// every export of this run; the key never leaves the process, so a stand-in cannot be reversed by guessing.
    let personalDataKey = PersonalDataRedaction.makeKey()
    private let state = Mutex(State())
    private let routes: Router
    /// The fleet alerts last computed, the newest event they saw and when (see ``fleetAlerts()``).
    private let fleet = Mutex<(newestEvent: Int64?, at: Date, alerts: [FleetDiagnosis.Alert])?>(nil)

    struct State {
        /// The recording proxy this console runs (`serve --proxy-upstream`), if any.
        var proxy: ProxyAttachment?
        var apps: [ConsoleApp] = []
        var server: HTTPServer?
        var remoteDropped = 0
        var maintenance: Task<Void, Never>?
    }

    /// What the console knows about the backend's configuration: each Programmer's MVPDs, and the key tokens are
    /// signed with (to check imported tokens). Empty when it runs without a local backend.
    public struct Catalog: Sendable {
        /// Each Programmer's MVPDs (requestor ID → MVPD IDs): the issuer rule of the Tokens grid.
        public var allowedMvpds: [String: Set<String>]
        /// The backend's public key, to check the signature of imported tokens; `nil` when not known.
        public var verificationKey: TokenVerificationKey?
        /// The local backend's demo subscribers: a replay signs in with one when no credentials are given.
        public var demoSubscribers: [Subscriber]
        /// Each Programmer's configuration as the SDK receives it **now** (MVPDs and their per-requestor and passive
        /// flags): the Flows cards, the Tokens grid and the Devices page run the SDK's storage rules and the service's
        /// ``RequestorBinding`` over it. Read at every use, so a run-time override of the backend (an MVPD switching to
        /// authentication per requestor) shows at once.
        public var requestors: [String: RequestorConfiguration] { requestorSource() }
        private let requestorSource: @Sendable () -> [String: RequestorConfiguration]

        /// The MVPDs with authentication per requestor, by ID (the flag is the MVPD's, the same for every Programmer).
        var perRequestorMvpds: Set<String>? {
            let all = requestors
            guard !all.isEmpty else { return nil }
            return Set(all.values.flatMap(\.mvpds).filter(\.authPerAggregator).map(\.id))
        }

        /// Creates a catalog; everything defaults to unknown (a console without a local backend).
        public init(
            allowedMvpds: [String: Set<String>] = [:], verificationKey: TokenVerificationKey? = nil, demoSubscribers: [Subscriber] = [],
            requestors: [String: RequestorConfiguration] = [:]
        ) {
            self.init(
                allowedMvpds: allowedMvpds, verificationKey: verificationKey, demoSubscribers: demoSubscribers,
                liveRequestors: { requestors })
        }

        /// Creates a catalog whose requestor configurations are read from `liveRequestors` at every use (the local
        /// backend's `requestorConfigurations()`, overrides applied).
        public init(
            allowedMvpds: [String: Set<String>], verificationKey: TokenVerificationKey?, demoSubscribers: [Subscriber],
            liveRequestors: @escaping @Sendable () -> [String: RequestorConfiguration]
        ) {
            self.allowedMvpds = allowedMvpds
            self.verificationKey = verificationKey
            self.demoSubscribers = demoSubscribers
            self.requestorSource = liveRequestors
        }
    }

    /// Creates a console over `history` (already opened) for the device folder of `configuration`. On PostgreSQL,
    /// await ``prepare()`` before ``start()``.
    public init(configuration: ConsoleConfiguration, history: any EventHistory, catalog: Catalog = Catalog(), logger: Logger) {
        self.configuration = configuration
        self.history = history
        sqlite = history as? HistoryDatabase
        self.catalog = catalog
        self.logger = logger
        accessGuard = AccessGuard(
            accessToken: configuration.accessToken, boundHost: configuration.host, publicURL: configuration.publicURL,
            operators: configuration.bundle == nil
                ? OperatorDirectory(history: history, refreshInterval: configuration.operatorRefreshInterval) : nil)
        let health = HistoryHealth(history: history, logger: logger)
        self.health = health
        batcher = EventBatcher(database: history, maxCount: 500, maxDelay: .milliseconds(50)) { state in
            switch state {
            case .failing(let problem, let waiting): health.noteWriteFailure(problem, during: "demo apps' events, \(waiting) waiting")
            case .recovered: health.writeSucceeded()
            }
        }
        live = LiveFeed(history: history, logger: logger)
        let box = ConsoleBox()
        var router = Router()
        Self.addRoutes(to: &router, console: box)
        // A history that cannot be read or written answers with why (read-only, disk full, damaged), not a bare 500.
        router.errorRenderer = { error, request in
            if let console = try? box.get(), let answer = console.health.failed(error, during: "\(request.method) \(request.path)") {
                return answer.response
            }
            return Router.defaultErrorResponse(error, request)
        }
        router.mount(StaticFiles(root: configuration.publicDirectory, revalidation: .seconds(1), headers: PagePolicy.headers), at: "/")
        routes = router
        box.set(self)
    }

    /// How routes reach the console without keeping it alive (the console owns its router).
    final class ConsoleBox: Sendable {
        private let console = Mutex<Weak?>(nil)
        private struct Weak: @unchecked Sendable { weak var value: Console? }

        func set(_ value: Console) { console.withLock { $0 = Weak(value: value) } }

        func get() throws(HTTPError) -> Console {
            guard let value = console.withLock({ $0?.value }) else {
                throw HTTPError(.serviceUnavailable, code: "stopping", message: "The console is stopping.")
            }
            return value
        }
    }

    // MARK: - Serving

    /// The door rules on the head alone, before the server reads a byte of the body: an unauthenticated upload is
    /// refused without being buffered.
    public func judgeHead(_ head: Request) -> Response? {
        accessGuard.check(head) ?? readOnlyRefusal(head)
    }

    /// Imports and ingest batches may be large (``ConsoleConfiguration/maxBodySize``); every other body is small.
    public func bodyLimit(for head: Request) -> Int? {
        head.method == "POST" && ["/api/ingest", "/api/storage/import"].contains(head.path) ? configuration.maxBodySize : min(configuration.maxBodySize, 1 << 20)
    }

    /// Every API route the console answers (for tests that walk them all); files under `/` besides.
    public var registeredRoutes: [Router.RouteDescription] { routes.registeredRoutes }

    /// Answers `request` on the server's thread when its route is cheap enough to (static files, small reads);
    /// `nil` sends it on to ``respond(to:)``. Access rules are checked first, as there.
    public func respondInline(to request: Request) -> Response? {
        let start = ContinuousClock.now
        if let refusal = accessGuard.check(request) ?? readOnlyRefusal(request) { return measured(refusal, request, since: start) }
        return routes.respondInline(to: request).map { measured(forReader(Self.notFoundPage(for: request, $0), of: request), request, since: start) }
    }

    /// Starts the answer of a route answered through a completion callback (`GET /api/events`: the history's read
    /// hands its page to `reply`, with no task between): the access rules first, as everywhere; `false` for every other
    /// route.
    public func respondLater(to request: Request, reply: @escaping @Sendable (Response) -> Void) -> Bool {
        let start = ContinuousClock.now
        if let refusal = accessGuard.check(request) ?? readOnlyRefusal(request) {
            reply(measured(refusal, request, since: start))
            return true
        }
        return routes.respondLater(to: request) { [self] response in
            reply(measured(forReader(Self.notFoundPage(for: request, response), of: request), request, since: start))
        }
    }

    /// Answers `request`: the access rules (``AccessGuard``; a read-only console refuses changes), then the route,
    /// then a not-found page for a browser that asked for an unknown page.
    public func respond(to request: Request) async -> Response {
        let start = ContinuousClock.now
        if let refusal = accessGuard.check(request) ?? readOnlyRefusal(request) { return measured(refusal, request, since: start) }
        return measured(forReader(Self.notFoundPage(for: request, await routes.respond(to: request)), of: request), request, since: start)
    }

    /// `response`, once its latency is in the request histogram under the route's pattern (`unmatched` for a path
    /// no route or file answers: label values stay bounded whatever paths clients send).
    private func measured(_ response: Response, _ request: Request, since start: ContinuousClock.Instant) -> Response {
        metrics.observe(route: routes.routeLabel(for: request) ?? "unmatched", method: request.method,
            status: Int(response.status.code), duration: ContinuousClock.now - start)
        return response
    }

    /// The fleet-wide alerts (``FleetDiagnosis``). Every page asks for them with the overview, and reading the last
    /// hour's signals is several history queries: they are read again only when new events arrived, or a minute later
    /// (old failures leave the hour's window).
    func fleetAlerts() async throws -> [FleetDiagnosis.Alert] {
        let now = configuration.now()
        let newest = try await history.latestCursor()
        if let cached = fleet.withLock({ $0 }), cached.newestEvent == newest, now.timeIntervalSince(cached.at) < 60 {
            return cached.alerts
        }
        let alerts = FleetDiagnosis.alerts(try await history.fleetSignals(now: now), consoleBackend: configuration.backendURL)
        fleet.withLock { $0 = (newest, now, alerts) }
        return alerts
    }

    /// A console showing a support bundle changes nothing.
    private func readOnlyRefusal(_ request: Request) -> Response? {
        guard let bundle = configuration.bundle, AccessGuard.changes(request) else { return nil }
        return HTTPError(.forbidden, code: "read_only",
            message: "This console shows a support bundle (\((bundle.file as NSString).lastPathComponent)): nothing can be changed.",
            detail: "Start `passconsole serve` without --bundle to work with a live device.").response
    }

    /// Reads what the console must know before it serves, asynchronously: the named operators (on PostgreSQL a
    /// console that did not read them lets no one in). Throws when the history cannot be read. Optional on SQLite,
    /// whose operators are read synchronously when the console is made.
    public func prepare() async throws {
        try await accessGuard.operators?.load()
    }

    /// Starts listening on the configured host and port, and the history's maintenance: retention, and on SQLite
    /// `quick_check` every ``ConsoleConfiguration/historyCheckInterval`` and `optimize`.
    public func start() throws {
        let server = HTTPServer(
            configuration: .init(host: configuration.host, port: configuration.port, connectionTimeout: 60,
                maxBodySize: configuration.maxBodySize),
            responder: self, logger: logger)
        accessGuard.operators?.loadNow()
        try server.start()
        accessGuard.operators?.afterEachRefresh { [weak self] in self?.rejudgeOpenFeeds() }
        accessGuard.operators?.startRefreshing()
        let retention = HistoryRetention(maxEvents: configuration.retention.maxEvents, maxAge: configuration.retention.maxAge)
        let history = self.history
        let sqlite = self.sqlite
        let logger = self.logger
        let health = self.health
        let checkInterval = configuration.historyCheckInterval
        let maintenance = Task.detached {
            let clock = ContinuousClock()
            var lastPrune: ContinuousClock.Instant?
            var lastCheck = clock.now
            while !Task.isCancelled {
                if lastPrune.map({ clock.now - $0 >= .seconds(60) }) ?? true {
                    lastPrune = clock.now
                    do {
                        try await history.prune(retention)
                        try await sqlite?.optimize()
                    } catch {
                        if health.failed(error, during: "maintenance") == nil { logger.warning("history maintenance failed: \(error)") }
                    }
                }
                if clock.now - lastCheck >= checkInterval {
                    lastCheck = clock.now
                    await health.check()
                }
                try? await Task.sleep(for: min(.seconds(60), checkInterval))
            }
        }
        state.withLock {
            $0.server = server
            $0.maintenance = maintenance
        }
    }

    /// The address the console answers on, once started.
    public var baseURL: String { state.withLock { $0.server?.baseURL } ?? "http://\(configuration.host):\(configuration.port)" }

    /// A new random access token (64 hex digits), for a console listening beyond loopback.
    public static func newAccessToken() -> String { AccessGuard.randomToken() }

    /// The CSRF token the page sends with every change (tests and scripts read it from `GET /api/overview`).
    public var csrfToken: String { accessGuard.csrfToken }

    /// Stops the demo apps, writes waiting events, stops listening, and checkpoints a SQLite history
    /// (``HistoryDatabase/checkpointForShutdown(patience:)``).
    public func shutdown() async {
        let (apps, server, maintenance) = state.withLock { ($0.apps, $0.server, $0.maintenance) }
        for app in apps { app.stop() }
        maintenance?.cancel()
        accessGuard.operators?.stop()
        await batcher.flush()
        await server?.shutdown()
        live.stop()
        state.withLock { $0.server = nil }
        // The write-ahead log folded into the file: history.sqlite alone then holds every event (a copy of it is whole).
        do { try await sqlite?.checkpointForShutdown() } catch {
            logger.warning("The history's write-ahead log could not be folded into the file at shutdown; it is kept beside it.",
                metadata: ["error": "\(error)"])
        }
    }

    // MARK: - Apps and events

    /// Adds a simulated app on the demo device; it starts when `start` is true.
    @discardableResult
    /// - Parameter device: the name of one of the configuration's devices (default: the main one).
    public func addApp(_ spec: ConsoleAppSpec, device: String? = nil, serviceProvider: URL, start: Bool = false) throws -> String {
        guard let onDevice = configuration.devices.first(where: { $0.name == (device ?? configuration.devices[0].name) }) else {
            throw HTTPError(.badRequest, code: "unknown_device", message: "No device is named '\(device ?? "")'.")
        }
        let batcher = self.batcher
        let app = ConsoleApp(spec: spec, device: onDevice, serviceProvider: serviceProvider, now: configuration.now, logger: logger) { events in
            Task.detached { await batcher.consume(events) }
        }
        state.withLock { $0.apps.append(app) }
        if start { try app.start() }
        return spec.id
    }

    var apps: [ConsoleApp] { state.withLock { $0.apps } }

    /// Waits until the apps' storage writes (running apps and stopped ones still finishing a call) have landed, so
    /// the device files read or changed next hold every change their events announced.
    /// The wait runs on a thread of its own (``BlockingWork``): a slow disk never holds the concurrency pool.
    func waitForAppStorageWrites() async {
        let roots = configuration.devices.map(\.folder.root)
        await BlockingWork.run { AccessEnabler.waitForAllStorageWrites(in: roots) }
    }

    func app(_ id: String) throws(HTTPError) -> ConsoleApp {
        guard let app = apps.first(where: { $0.spec.id == id }) else {
            throw HTTPError(.notFound, code: "unknown_app", message: "No app has the ID '\(id)'.",
                detail: "Apps: " + apps.map(\.spec.id).joined(separator: ", "))
        }
        return app
    }

    /// Lets the console show and change `proxy`'s rules (`GET /api/proxy`, `PUT /api/proxy/rules`).
    public func attachProxy(_ proxy: RecordingProxy, url: String) {
        state.withLock { $0.proxy = ProxyAttachment(proxy: proxy, url: url) }
    }

    /// The recording proxy this console runs, if any.
    var attachedProxy: ProxyAttachment? { state.withLock { $0.proxy } }

    /// Where an in-process backend records what it serves (``ServedEventSink``): this console's history, joined with
    /// its demo apps' sessions.
    public var servedEventSink: any EventSink {
        let box = appsBox
        return ServedEventSink(batcher: batcher, apps: { box() }, lost: { [weak self] count in self?.countDropped(count) })
    }

    /// Adds `count` to the events lost before reaching the history (saturating: a counter never traps).
    func countDropped(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.remoteDropped = Self.saturatingSum($0.remoteDropped, count) }
    }

    private var appsBox: @Sendable () -> [ConsoleApp] { { [weak self] in self?.apps ?? [] } }

    /// Writes events reported by another process, redacted by the SDK's own rule (``EntitlementEvent/redacted()``):
    /// a reporter's password field or full token is never stored. Returns how many were new.
    /// - Throws: ``HTTPError`` saying why when the history cannot be written (read-only, disk full, damaged).
    func ingest(_ events: [EntitlementEvent], droppedByReporter: Int) async throws -> Int {
        // A counter: it saturates instead of trapping when a reporter announces absurd numbers batch after batch.
        countDropped(droppedByReporter)
        do {
            let written = try await history.append(events.map { $0.redacted() })
            health.writeSucceeded()
            metrics.ingestedFromReporters.increment(by: Int64(written))
            return written
        } catch {
            metrics.ingestFailed(.historyWrite)
            throw health.failed(error, during: "ingest of \(events.count) events") ?? error
        }
    }

    /// The history's health as the overview shows it.
    func historyHealth() async -> HistoryHealth.Report {
        health.report(batcher: await batcher.failure)
    }

    /// Events lost before reaching the history: reporters' full buffers, and the demo apps' oldest events dropped
    /// past the batcher's bound while the history could not be written.
    func droppedCount() async -> Int {
        let local = await batcher.droppedCount
        return Self.saturatingSum(local, state.withLock { $0.remoteDropped })
    }

    /// `a + b`, or `Int.max` when that overflows.
    static func saturatingSum(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    /// Every app the console knows of: its demo apps and the apps seen in the history (newest device ID each).
    func knownApps() async -> [KnownApp] {
        var known: [String: KnownApp] = [:]
        for session in ((try? await history.sessions()) ?? []).reversed() {
            known[session.bundleID] = KnownApp(identity: session.app, deviceID: session.deviceID, device: nil, requestorID: session.requestorID)
        }
        for app in apps { if let app = app.known { known[app.identity.bundleID] = app } }
        return known.values.sorted { $0.identity.bundleID < $1.identity.bundleID }
    }

    /// Clear, undo, export and import over the device's storage files, once the running apps' writes have landed.
    func storageActions() async -> StorageActions {
        await waitForAppStorageWrites()
        return StorageActions(devices: configuration.devices, history: history, allowedMvpds: catalog.allowedMvpds,
            verificationKey: catalog.verificationKey, now: configuration.now)
    }
}
