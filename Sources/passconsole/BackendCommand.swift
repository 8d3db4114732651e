import ArgumentParser
import Foundation
import Logging
import MicroHTTP
import PassBackend
import PassCommandLine
import PassEvents
import PassConsole
import PassProtocol
import PassRecording

/// `passconsole backend`: the stand-in entitlement service and MVPD pages alone.
struct BackendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backend", abstract: "Run the local entitlement backend and MVPD login pages.")

    @OptionGroup var options: ConfigOptions
    @Option(help: "Port (0 picks a free one).") var port: UInt16 = 8081
    @Option(help: "Address to listen on. Anything but loopback requires the admin token it writes for /admin.")
    var host = "127.0.0.1"
    @Option(help: "Where the admin token is written when listening beyond loopback.")
    var adminTokenFile = ".passconsole/admin-token"
    @Option(help: "PEM file with the P-256 key tokens are signed with (default: a new key each run).")
    var signingKey: String?
    @Option(help: ArgumentHelp(
        "Record every exchange served and send it to this console (its base URL; POST /api/ingest).",
        discussion: "A console beyond loopback wants its access token: set PASSCONSOLE_TOKEN."))
    var reportTo: String?

    func run() async throws {
        let logger = Bootstrap.logger("backend")
        // The admin API takes a token when PASSBACKEND_ADMIN_TOKEN names one, and always beyond loopback.
        var adminToken = AdminToken.fromEnvironment
        if !LocalAddresses.isLoopback(host) {
            adminToken = adminToken ?? AdminToken.random()
            try ServeCommand.writeSecret(adminToken!, to: adminTokenFile)
        }
        let reporter = try reportTo.map(Bootstrap.reporter(to:))
        let (server, _, _) = try Bootstrap.startBackend(
            configPath: options.config, host: host, port: port, signingKeyPath: signingKey,
            admin: AdminAccess(token: adminToken, boundHost: host), recording: reporter, logger: logger)
        print("PassBackend on \(server.baseURL)")
        if !LocalAddresses.isLoopback(host) { print("  Admin token:   written to \(adminTokenFile) (send Authorization: Bearer <token> to /admin)") }
        print("  SDK protocol:  \(server.baseURL)/adobe-services/1.0/config/REF30")
        print("  Activation:    \(server.baseURL)/activate")
        if let reportTo { print("  Recording to:  \(reportTo) (every exchange served, as events)") }
        await Bootstrap.waitForTermination()
        await server.shutdown()
        await reporter?.finish()
    }
}

/// Wiring shared by the commands: logging, configuration, servers, signals.
enum Bootstrap {
    static func logger(_ label: String) -> Logger {
        var logger = Logger(label: "passconsole.\(label)")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
        return logger
    }

    static func startBackend(
        configPath: String, host: String = "127.0.0.1", port: UInt16, signingKeyPath: String?, admin: AdminAccess = AdminAccess(),
        recording: (any EventSink)? = nil, logger: Logger
    ) throws
        -> (server: HTTPServer, verificationKey: TokenVerificationKey, service: BackendService)
    {
        let configuration = try BackendConfiguration.load(path: configPath)
        var key = TokenSigningKey()
        if let signingKeyPath {
            guard let pem = try? String(contentsOfFile: signingKeyPath, encoding: .utf8) else {
                throw ValidationError("Cannot read the signing key \(signingKeyPath).")
            }
            key = try TokenSigningKey(pemRepresentation: pem)
        }
        let service = BackendService(configuration: configuration, signingKey: key, logger: logger)
        let server = HTTPServer(
            configuration: .init(host: host, port: port, threadPoolSize: ProcessInfo.processInfo.activeProcessorCount),
            responder: PassBackend(service: service, admin: admin, recording: recording), logger: logger)
        do { try server.start() } catch {
            throw ValidationError("\(error) Is another program using port \(port)? Pick another with --port.")
        }
        return (server, key.publicKey, service)
    }

    /// An ``EventReporter`` to the console at `consoleURL` (`--report-to`), with `PASSCONSOLE_TOKEN` as its bearer token
    /// when set (a console beyond loopback wants it).
    static func reporter(to consoleURL: String) throws -> EventReporter {
        guard let url = URL(string: consoleURL), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else { throw ValidationError("--report-to wants a console's base URL, such as http://127.0.0.1:8080; got '\(consoleURL)'.") }
        let token = ProcessInfo.processInfo.environment["PASSCONSOLE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        // A server's traffic comes faster than an app's: larger batches, a deeper queue, and NIO's client.
        return EventReporter(
            console: url, capacity: 100_000, batchSize: 2_000, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:],
            poster: ConsolePoster())
    }

    /// Returns when the process gets SIGINT or SIGTERM.
    /// How long a stop may take once asked for (in-flight requests finish, event streams end, waiting events land);
    /// past it the process exits anyway.
    static let stopDeadline: Duration = .seconds(10)

    /// Returns at the first SIGINT or SIGTERM. The signals are handled on a queue of their own, never on the Swift
    /// concurrency pool, so a stop is heard whatever the pool is doing: from that first signal the process has
    /// ``stopDeadline`` to shut down cleanly before it exits by itself, and a second signal exits at once.
    static func waitForTermination() async {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queue = DispatchQueue(label: "signals")
            let sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: queue) }
            let resumed = LockedFlag()
            for source in sources {
                source.setEventHandler {
                    guard resumed.set() else {
                        stderrLine("passconsole: asked again to stop; exiting now.")
                        _exit(1)
                    }
                    let (seconds, _) = stopDeadline.components
                    queue.asyncAfter(deadline: .now() + .seconds(Int(seconds))) {
                        stderrLine("passconsole: did not stop within \(seconds) s of the signal; exiting without finishing.")
                        _exit(1)
                    }
                    continuation.resume()
                }
                source.resume()
            }
            SignalSources.keep(sources)
        }
    }

    /// Writes one line to standard error, unbuffered (safe when the rest of the process is stuck).
    static func stderrLine(_ text: String) {
        let line = Array((text + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}

extension AdminToken {
    /// A new admin token: 32 random bytes as hex.
    static func random() -> String { Console.newAccessToken() }
}

/// Keeps signal sources alive for the life of the process.
enum SignalSources {
    nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []
    static func keep(_ new: [any DispatchSourceSignal]) { sources.append(contentsOf: new) }
}

/// A flag set once, from any thread.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    /// Sets the flag; `true` only for the first caller.
    func set() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !value else { return false }
        value = true
        return true
    }
}
