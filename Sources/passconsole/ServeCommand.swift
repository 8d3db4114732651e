import AccessEnabler
import ArgumentParser
import Foundation
import Logging
import Metrics
import Prometheus
import MicroHTTP
import PassBackend
import PassCommandLine
import PassConsole
import PassProxy
import PassHistory
import PassStorage

/// `passconsole serve`: the console, the local backend and the demo device with its apps, in one process.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the console with the local backend and the demo apps.")

    @OptionGroup var options: ConfigOptions
    @Option(help: "Address the console listens on. Anything but loopback requires the access token it prints.")
    var host = "127.0.0.1"
    @Option(help: "Console port.") var port: UInt16 = 8080
    @Option(help: ArgumentHelp(
        "The URL people open the console by, when not the bound address (a host name, a proxy, a forwarded port).",
        discussion: "Its host is accepted in Host and Origin headers besides loopback and this machine's addresses."))
    var publicURL: String?
    @Option(help: "Backend port on 127.0.0.1.") var backendPort: UInt16 = 8081
    @Option(help: "The simulated device folder the console shows and the demo apps use.")
    var device = ".passconsole/device"
    @Option(help: ArgumentHelp(
        "The event history: a SQLite file, or a team's PostgreSQL as postgres://user:password@host:5432/database.",
        discussion: "Default: $PASSCONSOLE_HISTORY_URL when set, else .passconsole/history.sqlite."))
    var history: String?
    @Flag(help: "When the history is damaged, move it aside (kept as FILE.damaged-TIMESTAMP) and start a fresh one.")
    var historyRecover = false
    @Option(help: ArgumentHelp(
        "PostgreSQL history: seconds a read or write waits for a connection before answering 503 (the server unreachable).",
        valueName: "seconds"))
    var historyTimeout: Double = 5
    @Option(help: "Demo devices and apps (JSON, see Config/README.md).") var consoleConfig = "Config/console.json"
    @Option(help: "Folder with the console's static files.") var publicDir = "Public"
    @Option(help: "Where the access token is written when listening beyond loopback.")
    var accessTokenFile = ".passconsole/access-token"
    @Option(help: "PEM file with the P-256 key tokens are signed with (default: a new key each run).")
    var signingKey: String?
    @Flag(help: "Start no demo apps (only show the device folder and what other processes report).") var noDemo = false
    @Option(help: ArgumentHelp(
        "Also run a recording proxy in front of this service (https://api.auth.adobe.com, or another backend), recording into this console.",
        discussion: "HTTPS with a certificate from a local CA kept in .passconsole/proxy-ca (devices trust it from /_proxy/ca.pem); rules are set in the console (PUT /api/proxy/rules)."))
    var proxyUpstream: String?
    @Option(help: "The recording proxy's port on 127.0.0.1 (with --proxy-upstream).") var proxyPort: UInt16 = 8443
    @Flag(help: "Serve the recording proxy over plain HTTP instead of HTTPS.") var proxyPlain = false
    @Option(help: "Open a support bundle read-only (offline: no backend, no demo apps, nothing can be changed).")
    var bundle: String?
    @Option(help: "How the log is written to standard error: text, or json (one JSON object per line, for log shippers).")
    var logFormat: LogFormat = .text

    func run() async throws {
        logFormat.bootstrap()
        let logger = Bootstrap.logger("serve")
        if let bundle { return try await serveBundle(bundle, logger: logger) }
        let backendConfiguration = try BackendConfiguration.load(path: options.config)
        let setup = try ConsoleSetup.load(path: consoleConfig)
        let deviceRoot = URL(filePath: device, directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: deviceRoot, withIntermediateDirectories: true)
        let historyLocation = try HistoryLocation(option: history)
        guard historyTimeout > 0, historyTimeout <= 3600 else {
            throw ValidationError("--history-timeout must be between 0 and 3600 seconds, not \(historyTimeout).")
        }
        let leaseTimeout = Duration.milliseconds(Int64((historyTimeout * 1000).rounded()))
        let historyDatabase: any EventHistory
        switch historyLocation {
        case .sqlite(let path):
            try FileManager.default.createDirectory(at: URL(filePath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            historyDatabase = try await Self.openHistory(path, recover: historyRecover, logger: logger)
        case .postgres(let location):
            guard !historyRecover else {
                throw ValidationError("--history-recover moves a damaged SQLite file aside; it does not apply to the PostgreSQL history \(location).")
            }
            historyDatabase = try await HistoryLocation.openPostgres(location, leaseTimeout: leaseTimeout, logger: logger)
        }

        // What the backend serves becomes sessions in this console's history (attached once the console exists).
        let served = RelaySink()
        let (backend, verificationKey, service) = try Bootstrap.startBackend(
            configPath: options.config, port: backendPort, signingKeyPath: signingKey, recording: served, logger: logger)
        let devices = try setup.consoleDevices(root: deviceRoot)
        var configuration = ConsoleConfiguration(device: devices[0].folder, named: devices[0].name, more: Array(devices.dropFirst()))
        configuration.host = host
        configuration.port = port
        configuration.publicDirectory = publicDir
        configuration.backendURL = backend.baseURL
        configuration.publicURL = publicURL
        configuration.historyLeaseTimeout = leaseTimeout
        let loopback = configuration.isLoopback
        try applyAccessToken(to: &configuration)
        let catalog = Console.Catalog(
            allowedMvpds: Dictionary(uniqueKeysWithValues: backendConfiguration.programmers.map { ($0.id, Set($0.mvpds)) }),
            verificationKey: verificationKey,
            demoSubscribers: backendConfiguration.subscribers,
            liveRequestors: { service.requestorConfigurations() })
        let console = Console(configuration: configuration, history: historyDatabase, catalog: catalog, logger: logger)
        served.attach(console.servedEventSink)
        // The named operators, read before serving (PostgreSQL has no synchronous read for the door to make).
        do { try await console.prepare() } catch {
            throw ValidationError("Cannot read the named operators from the history \(historyLocation): \(HistoryLocation.reason(error))")
        }
        // This process has one console: libraries reporting through swift-metrics' global API land in its /metrics.
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: console.metricsRegistry))
        do { try console.start() } catch {
            await backend.shutdown()
            throw ValidationError("\(error) Is another program using port \(port)? Pick another with --port.")
        }
        let proxyServer = try startProxy(console)
        let serviceProvider = URL(string: backend.baseURL + "/adobe-services")!
        if !noDemo {
            for (spec, deviceName, start) in try setup.specs(backend: backendConfiguration) {
                try console.addApp(spec, device: deviceName, serviceProvider: serviceProvider, start: start)
            }
        }
        // With named operators people sign in with their own tokens; the console's access token only ingests.
        let operators = (try? await historyDatabase.operators()) ?? []
        let tokenQuery = operators.isEmpty ? configuration.accessToken.map { "?token=\($0)" } ?? "" : ""
        let signIn = operators.isEmpty ? "" : "\n  Sign-in:     \(operators.filter { $0.revokedAt == nil }.count) named operators "
            + "(passconsole operator list); each signs in with their personal token"
        print("""
            PassConsole is running (Ctrl-C stops it):
              Console:     \(Self.consoleURL(console, publicURL))/\(tokenQuery)\(Self.listening(console, publicURL))
              Backend:     \(backend.baseURL)/adobe-services/1.0/config/REF30
              Activation:  \(backend.baseURL)/activate   (second-screen sign-in)
              Device:      \(deviceRoot.path(percentEncoded: false))
              History:     \(historyLocation)
              Demo users:  alice/alice123, bob/bob123, carol/carol123, dave/dave123 (swift run passconsole demo)
            """ + signIn + (loopback ? "" : "\n  Access token written to \(accessTokenFile)"
                + (operators.isEmpty ? "" : " (for reporting apps' /api/ingest only)"))
            + (proxyServer.map { "\n  Proxy:       \($0.baseURL) → \(proxyUpstream ?? "")   (recording into this console)" } ?? ""))
        // Whoever reads stdout through a pipe or file (a script, a test) gets the URLs now, not at exit.
        fflush(nil)
        await Bootstrap.waitForTermination()
        await proxyServer?.shutdown()
        await console.shutdown()
        await backend.shutdown()
    }

    /// The recording proxy of `--proxy-upstream`, recording into `console`, its rules set there.
    func startProxy(_ console: Console) throws -> HTTPServer? {
        guard let proxyUpstream else { return nil }
        guard let upstream = URL(string: proxyUpstream), let scheme = upstream.scheme?.lowercased(), ["http", "https"].contains(scheme),
            upstream.host != nil
        else { throw ValidationError("--proxy-upstream wants a service's base URL, such as https://api.auth.adobe.com; got '\(proxyUpstream)'.") }
        var configuration = HTTPServerConfiguration(port: proxyPort, threadPoolSize: ProcessInfo.processInfo.activeProcessorCount)
        var caPEM: String?
        if !proxyPlain {
            let ca = try LocalCA.loadOrCreate(in: URL(fileURLWithPath: ".passconsole/proxy-ca"))
            configuration.tls = try ca.issue(hosts: ["127.0.0.1", "localhost"])
            caPEM = ca.certificatePEM
        }
        let proxy = RecordingProxy(upstream: upstream, recording: console.servedEventSink, caCertificatePEM: caPEM)
        let server = HTTPServer(configuration: configuration, responder: proxy, logger: Bootstrap.logger("proxy"))
        do { try server.start() } catch {
            throw ValidationError("\(error) Is another program using port \(proxyPort)? Pick another with --proxy-port.")
        }
        console.attachProxy(proxy, url: server.baseURL)
        return server
    }

    /// An offline console over a support bundle: its events in an in-memory history, its cards and storage as exported.
    func serveBundle(_ path: String, logger: Logger) async throws {
        let opened: OpenedBundle
        do { opened = try OpenedBundle.read(path: path) } catch { throw ValidationError(error.description) }
        let history = try HistoryDatabase.inMemory()
        try await history.append(opened.events)
        // An empty device folder of its own: the bundle's storage is shown as exported, never a live one.
        let emptyDevice = FileManager.default.temporaryDirectory.appendingPathComponent("passconsole-bundle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: emptyDevice, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: emptyDevice) }
        var configuration = ConsoleConfiguration(device: DeviceFolder(root: emptyDevice), named: "bundle")
        configuration.host = host
        configuration.port = port
        configuration.publicDirectory = publicDir
        configuration.bundle = opened
        configuration.publicURL = publicURL
        try applyAccessToken(to: &configuration)
        let console = Console(configuration: configuration, history: history, logger: logger)
        do { try console.start() } catch {
            throw ValidationError("\(error) Is another program using port \(port)? Pick another with --port.")
        }
        let tokenQuery = configuration.accessToken.map { "?token=\($0)" } ?? ""
        print("""
            PassConsole is showing a support bundle, read-only (Ctrl-C stops it):
              Console:  \(Self.consoleURL(console, publicURL))/\(tokenQuery)#/sessions/\(opened.sessionID.uuidString)
              Bundle:   \(path) — session \(opened.sessionID.uuidString) of \(opened.bundleID), \(opened.events.count) events, \
            made \(EntitlementEvent.Wire.format(opened.createdAt))
            """)
        fflush(nil)
        await Bootstrap.waitForTermination()
        await console.shutdown()
    }

    /// `  (listening on http://127.0.0.1:8080)` when people open the console by a `--public-url` (a proxy in front of
    /// it): where that proxy must send requests; nothing otherwise.
    static func listening(_ console: Console, _ publicURL: String?) -> String {
        guard let publicURL, !publicURL.isEmpty, consoleURL(console, publicURL) != console.baseURL else { return "" }
        return "  (listening on \(console.baseURL))"
    }

    /// The access token: beyond loopback always one (`PASSCONSOLE_TOKEN`, or a new random one), written to
    /// `--access-token-file`; on loopback only when `PASSCONSOLE_TOKEN` names one. An empty `PASSCONSOLE_TOKEN=`
    /// is no token.
    func applyAccessToken(to configuration: inout ConsoleConfiguration) throws {
        let named = ProcessInfo.processInfo.environment["PASSCONSOLE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if !configuration.isLoopback {
            let token = named ?? Console.newAccessToken()
            try Self.writeSecret(token, to: accessTokenFile)
            configuration.accessToken = token
        } else {
            configuration.accessToken = named
        }
    }

    /// The console's address as people should open it: `--public-url` when given.
    static func consoleURL(_ console: Console, _ publicURL: String?) -> String {
        guard let publicURL, !publicURL.isEmpty else { return console.baseURL }
        return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
    }

    /// The history at `path`, checked by `quick_check` before anything starts: a damaged file stops start-up with
    /// what to do, or with `recover` is moved aside (kept) for a fresh one, which is said.
    static func openHistory(_ path: String, recover: Bool, logger: Logger) async throws -> HistoryDatabase {
        do {
            let (database, movedAside) = try await HistoryDatabase.openChecked(path: path, recover: recover)
            if let movedAside {
                let message = "The history \(path) was damaged: moved aside to \(movedAside) (kept, for inspection or "
                    + "salvage with sqlite3's .recover) and a fresh, empty history was started."
                logger.warning("\(message)")
                print("⚠ " + message)
            }
            return database
        } catch let problem as HistoryProblem where problem.kind == .damaged {
            throw ValidationError("""
                The history \(path) is damaged (\(problem.detail)).
                Start again with --history-recover to move it aside (kept as \(path).damaged-TIMESTAMP) and begin a \
                fresh history, or restore the file from a backup, or pick another file with --history.
                """)
        } catch {
            let reason = HistoryProblem(error, file: path)?.message ?? "\(error)"
            throw ValidationError("Cannot open the history \(path): \(reason)")
        }
    }

    /// Writes `secret` readable by its owner only.
    static func writeSecret(_ secret: String, to path: String) throws {
        let url = URL(filePath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: path, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else { throw ValidationError("Cannot write the access token to \(path); pick another file with --access-token-file.") }
    }
}
