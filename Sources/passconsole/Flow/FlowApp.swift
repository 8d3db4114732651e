import AccessEnabler
import ArgumentParser
import Foundation
import Logging
import PassProtocol
import PassSimulator
import PassStorage

/// What a `passconsole flow` run asks the SDK for.
enum FlowIntent: Sendable {
    /// checkAuthentication → status 1.
    case check
    /// getAuthentication through the picker and the login page → status 1.
    case login
    /// getAuthorization for each resource (after a login when credentials are given) → setToken for every one.
    case authorize([String])
    /// checkPreauthorizedResources → preauthorizedResources.
    case preauthorize([String])
    /// getMetadata → setMetadataStatus with a value.
    case metadata(opCode: Int, arguments: [String: String])
    /// logout, through the logout chain → status 0.
    case logout
    /// getAuthentication, then setSelectedProvider(nil) at the picker or on the login page → status 0 (see
    /// ``FlowCancelPoint``).
    case cancel(at: FlowCancelPoint)
    /// checkAuthorization for each resource (never starts a login) → setToken for every one.
    case checkAuthorization([String])
    /// getSelectedProvider → selectedProvider with an MVPD.
    case selectedProvider

    var name: String {
        switch self {
        case .check: "check"
        case .login: "login"
        case .authorize: "authorize"
        case .preauthorize: "preauthorize"
        case .metadata: "metadata"
        case .logout: "logout"
        case .cancel: "cancel"
        case .checkAuthorization: "check-authorization"
        case .selectedProvider: "selected-provider"
        }
    }
}

/// The simulated app on the simulated device: its identity, storage and device ID, and the run of one intent.
struct FlowApp {
    let options: FlowOptions
    let app: SimulatedApp
    private let relay: FlowRelay

    /// Builds the app from the options (see ``SimulatedApp``): loads (or makes) the device's hardware profile,
    /// computes the device ID, and picks the storage — the team's shared file on iOS, the app's private file on tvOS.
    /// The script picks `--mvpd` and signs in with `--user`/`--password`.
    /// `player` replaces the script (`cancel` leaves the screens to the run: ``FlowIntent/player``).
    init(options: FlowOptions, player: SimulatedApp.Player? = nil) throws {
        self.options = options
        let relay = FlowRelay()
        self.relay = relay
        // --apple-sso sets the device's TV Provider before the app starts (as Settings → TV Provider would).
        if let setting = try options.tvProvider() {
            try setting.save(in: DeviceFolder(root: options.deviceURL))
        }
        app = try SimulatedApp(
            app: AppIdentity(bundleID: options.bundleID, teamID: options.team, platform: options.platform),
            device: DeviceFolder(root: options.deviceURL), osVersion: options.osVersion, serviceProvider: options.serviceProvider,
            player: player ?? .script(
                mvpd: options.mvpd,
                credentials: options.credentials.map { SimulatedApp.Credentials(username: $0.user, password: $0.password) }),
            configure: { [release = options.sdkRelease, wire = options.wire, statement = options.statement] in
                $0.sdkRelease = release
                $0.protocol = wire
                if wire == .restV2 { $0.softwareStatement = statement }
            }, logger: Self.logger(), onCallback: { relay.callback($0) }, onFailure: { relay.fail($0) })
    }

    /// How long the run may take: `--timeout`, else 30 s (1800 s for a tvOS login, where a person types a code).
    func timeout(for intent: FlowIntent) -> Double {
        if let timeout = options.timeout { return timeout }
        switch (options.platform, intent) {
        case (.tvOS, .login), (.tvOS, .authorize): return 1800
        default: return 30
        }
    }

    /// Runs `intent` from `setRequestor` to its terminal callback; `true` when it succeeded.
    func run(_ intent: FlowIntent, output: FlowOutput) async -> Bool {
        let (signals, continuation) = AsyncStream<FlowSignal>.makeStream()
        relay.connect(output, continuation)
        let enabler = app.enabler

        // Subscribed before the first call, so the console sees the run from setRequestor on.
        var reporter: EventReporter?
        if let reportTo = options.reportTo, let console = URL(string: reportTo) {
            reporter = EventReporter(console: console, headers: options.reportToken.map { ["Authorization": "Bearer \($0)"] } ?? [:])
            reporter?.attach(to: enabler)
        }
        var eventPrinter: Task<Void, Never>?
        if options.events {
            let events = enabler.events()  // subscribed now, before the first call
            eventPrinter = Task { for await event in events { output.event(event) } }
        }
        let seconds = timeout(for: intent)
        let timer = Task {
            try? await Task.sleep(for: .seconds(seconds))
            if !Task.isCancelled { continuation.yield(.timedOut) }
        }
        if options.platform == .tvOS, case .login = intent {
            FileHandle.standardError.write(Data(
                "Waiting up to \(Int(seconds)) s for the registration code to be activated at \(options.backend)/activate\n".utf8))
        }

        var runner = FlowRun(signals: signals, output: output, timeout: seconds)
        let succeeded = await runner.run(intent, app: app, options: options)
        timer.cancel()

        // Let trailing callbacks (tracking data after a status) and events reach stdout before exiting.
        if !runner.timedOut { await Self.waitAtMost(seconds: 5) { await enabler.settle() } }
        if let eventPrinter {
            await Self.waitForQuiet(output)
            eventPrinter.cancel()
        }
        if let reporter {
            await reporter.finish()
            if reporter.pendingCount > 0 || reporter.droppedCount > 0 {
                FileHandle.standardError.write(Data(("Could not report \(reporter.pendingCount + reporter.droppedCount) event(s) to "
                    + "\(options.reportTo ?? "the console"): \(reporter.lastError ?? "buffer full")\n").utf8))
            }
        }
        continuation.finish()
        return succeeded
    }

    /// Waits for `work`, but not longer than `seconds`.
    static func waitAtMost(seconds: Double, _ work: @escaping @Sendable () async -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = LockedFlag()
            Task {
                await work()
                if once.set() { continuation.resume() }
            }
            Task {
                try? await Task.sleep(for: .seconds(seconds))
                if once.set() { continuation.resume() }
            }
        }
    }

    /// Waits until no event has been printed for 100 ms (at most 2 s): events of HTTP exchanges arrive a moment
    /// after the callbacks.
    static func waitForQuiet(_ output: FlowOutput) async {
        var last = output.eventsPrinted
        for _ in 0..<20 {
            try? await Task.sleep(for: .milliseconds(100))
            let now = output.eventsPrinted
            if now == last { return }
            last = now
        }
    }

    /// The SDK's log: stderr, so stdout carries only JSON lines. `LOG_LEVEL` sets the level (default warning).
    static func logger() -> Logger {
        var logger = Logger(label: "passconsole.flow") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .warning
        return logger
    }
}

/// One run's progress: consumes the app's signals and decides when the intent has succeeded or failed.
struct FlowRun {
    private var iterator: AsyncStream<FlowSignal>.AsyncIterator
    let output: FlowOutput
    private let timeout: Double
    private(set) var timedOut = false

    init(signals: AsyncStream<FlowSignal>, output: FlowOutput, timeout: Double) {
        iterator = signals.makeAsyncIterator()
        self.output = output
        self.timeout = timeout
    }

    /// What one callback means for the step being waited for.
    enum Verdict {
        case wait
        case succeeded
        case failed
    }

    mutating func run(_ intent: FlowIntent, app: SimulatedApp, options: FlowOptions) async -> Bool {
        let enabler = app.enabler
        // Before setRequestor, so the configuration call carries the visitor ID too.
        if let sdkOptions = options.sdkOptions { enabler.setOptions(sdkOptions) }
        if options.handleSVC { enabler.setOptions(["handleSVC": "true"]) }
        app.setRequestor(options.requestor, secret: options.secret, publicKey: options.publicKey)
        let configured = await wait(for: "setRequestorComplete") { callback in
            guard case .setRequestorComplete(let status) = callback else { return .wait }
            return status == 1 ? .succeeded : .failed
        }
        guard configured else { return false }

        switch intent {
        case .check:
            enabler.checkAuthentication()
            return await waitForAuthenticationStatus(1)
        case .login:
            app.expect(.signIn)
            enabler.getAuthentication(forceAuthn: options.forceAuthn)
            return await waitForAuthenticationStatus(1)
        case .authorize(let resources):
            app.expect(.signIn)
            if options.credentials != nil {
                enabler.getAuthentication(forceAuthn: options.forceAuthn)
                guard await waitForAuthenticationStatus(1) else { return false }
            }
            for resource in resources { enabler.getAuthorization(resource) }
            return await waitForTokens(resources)
        case .preauthorize(let resources):
            enabler.checkPreauthorizedResources(resources)
            return await wait(for: "preauthorizedResources") { callback in
                if case .preauthorizedResources = callback { return .succeeded }
                return .wait
            }
        case .metadata(let opCode, let arguments):
            enabler.getMetadata(arguments.merging([PassConstants.METADATA_OPCODE_KEY: String(opCode)]) { $1 })
            return await wait(for: "setMetadataStatus") { callback in
                guard case .setMetadataStatus(let metadata, _, _, _) = callback else { return .wait }
                return metadata == nil ? .failed : .succeeded
            }
        case .logout:
            app.expect(.logout)
            enabler.logout()
            return await waitForAuthenticationStatus(0)
        case .cancel(let point): return await cancel(at: point, app: app, options: options)
        case .checkAuthorization(let resources): return await checkAuthorization(resources, enabler: enabler)
        case .selectedProvider: return await selectedProvider(enabler: enabler)
        }
    }

    mutating func waitForAuthenticationStatus(_ wanted: Int) async -> Bool {
        await wait(for: "setAuthenticationStatus") { callback in
            guard case .setAuthenticationStatus(let status, _) = callback else { return .wait }
            return status == wanted ? .succeeded : .failed
        }
    }

    /// Consumes signals until `verdict` decides, the app fails, or the time is up.
    mutating func wait(for what: String, _ verdict: (EntitlementCallback) -> Verdict) async -> Bool {
        while let signal = await iterator.next() {
            switch signal {
            case .callback(let callback):
                switch verdict(callback) {
                case .wait: continue
                case .succeeded: return true
                case .failed: return false
                }
            case .failure:
                return false  // already printed by the relay
            case .timedOut:
                timedOut = true
                output.error("Timed out after \(Self.format(timeout)) s waiting for \(what).")
                return false
            }
        }
        return false
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
