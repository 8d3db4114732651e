import AccessEnabler
import Foundation
import Logging
import MicroHTTP
import PassSimulator
import PassStorage
import Locking

/// A simulated app running inside the console on its demo device: a ``SimulatedApp`` played by the person at the
/// page. The picker waits for a click, the MVPD login page for credentials typed in the page (or for the person to
/// sign in on the backend's page in their own browser); every callback is kept for the page to show.
final class ConsoleApp: Sendable {
    let spec: ConsoleAppSpec
    let device: ConsoleDevice
    let serviceProvider: URL
    let now: @Sendable () -> Date
    private let sink: @Sendable (AsyncStream<EntitlementEvent>) -> Void
    private let logger: Logger
    private let state = Mutex(State())

    struct State {
        var app: SimulatedApp?
        var callbacks: ConsoleAppCallbacks?
        var deviceID: String?
        var deviceIDSource: String?
        var sessionID: UUID?
        var progress = FlowProgress()
        var progressTask: Task<Void, Never>?
    }

    /// - Parameter sink: where the app's events go (the console's history).
    init(
        spec: ConsoleAppSpec, device: ConsoleDevice, serviceProvider: URL, now: @escaping @Sendable () -> Date, logger: Logger,
        sink: @escaping @Sendable (AsyncStream<EntitlementEvent>) -> Void
    ) {
        self.spec = spec
        self.device = device
        self.serviceProvider = serviceProvider
        self.now = now
        self.logger = logger
        self.sink = sink
    }

    var isRunning: Bool { state.withLock { $0.app != nil } }

    /// The identity the console judges tokens against (also while stopped: computed from the device profile).
    var known: KnownApp? {
        if let deviceID = state.withLock({ $0.deviceID }) {
            return KnownApp(identity: spec.app, deviceID: deviceID, device: device.name, requestorID: spec.requestorID)
        }
        guard let profile = try? DeviceProfile.loadOrCreate(in: device.folder, platform: spec.app.platform, osVersion: nil) else {
            return nil
        }
        return KnownApp(identity: spec.app, deviceID: DeviceIdentity.deviceID(profile: profile, app: spec.app), device: device.name,
            requestorID: spec.requestorID)
    }

    /// Launches the app: a new AccessEnabler (a new session) and its setRequestor.
    func start() throws {
        guard !isRunning else { return }
        let callbacks = ConsoleAppCallbacks()
        let now = self.now
        let app = try SimulatedApp(
            app: spec.app, device: device.folder, serviceProvider: serviceProvider, player: .person,
            configure: { $0.now = now }, logger: logger, onCallback: { callbacks.record($0) })
        let enabler = app.enabler
        let events = enabler.events(replay: true)
        let (forHistory, history) = AsyncStream<EntitlementEvent>.makeStream()
        sink(forHistory)
        let progressTask = Task { [weak self] in
            for await event in events {
                history.yield(event)
                self?.state.withLock { state in
                    state.sessionID = event.sessionID
                    state.progress.apply(event)
                }
            }
            history.finish()
        }
        state.withLock { state in
            state.app = app
            state.callbacks = callbacks
            state.deviceID = app.configuration.deviceID
            state.deviceIDSource = DeviceIdentity.source(profile: app.profile, app: spec.app).description
            state.progress = FlowProgress()
            state.sessionID = nil
            state.progressTask = progressTask
        }
        let signed = spec.app.platform == .tvOS
        app.setRequestor(spec.requestorID, secret: signed ? spec.secret : nil, publicKey: signed ? spec.publicKey : nil)
    }

    /// The running app's session and device ID, once its first event was recorded.
    var runningSession: (sessionID: UUID, deviceID: String)? {
        state.withLock { state in
            guard state.app != nil, let session = state.sessionID, let device = state.deviceID else { return nil }
            return (session, device)
        }
    }

    /// Quits the app (its storage stays, as on a phone).
    func stop() {
        let task = state.withLock { state -> Task<Void, Never>? in
            defer {
                state.app = nil
                state.callbacks = nil
                state.progressTask = nil
            }
            return state.progressTask
        }
        // Cancelling the forwarding task ends the app's event stream, which ends its history feed.
        task?.cancel()
    }

    /// The methods ``call(_:arguments:)`` makes (a replay makes these again; `handleExternalURL` it treats apart).
    static let callable: Set<String> = [
        "checkAuthentication", "getAuthentication", "checkAuthorization", "getAuthorization", "checkPreauthorizedResources",
        "getMetadata", "setSelectedProvider", "getSelectedProvider", "handleExternalURL", "logout",
    ]

    /// Runs one API method of the seeds, as the app's code would call it.
    func call(_ method: String, arguments: [String: String]) throws(HTTPError) {
        guard let app = state.withLock({ $0.app }) else {
            throw HTTPError(.conflict, code: "app_not_running", message: "\(spec.name) is not running: start it first.")
        }
        let enabler = app.enabler
        func resource() throws(HTTPError) -> String {
            guard let resource = arguments["resource"], !resource.isEmpty else {
                throw HTTPError(.badRequest, code: "missing_argument", message: "\(method) needs a resource.")
            }
            return resource
        }
        if let force = arguments["forceAuthn"], !["true", "false", ""].contains(force) {
            throw HTTPError(.badRequest, code: "invalid_argument", message: "forceAuthn is \"true\" or \"false\", not '\(force)'.")
        }
        switch method {
        case "checkAuthentication": enabler.checkAuthentication()
        case "getAuthentication": enabler.getAuthentication(forceAuthn: arguments["forceAuthn"] == "true")
        case "checkAuthorization": enabler.checkAuthorization(try resource())
        case "getAuthorization": enabler.getAuthorization(try resource())
        case "checkPreauthorizedResources":
            let list = (arguments["resources"] ?? spec.resources.joined(separator: ","))
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            enabler.checkPreauthorizedResources(list)
        case "getMetadata": enabler.getMetadata(["opCode": arguments["opCode"] ?? arguments["key"] ?? "0"]
            .merging(arguments.filter { $0.key != "key" && $0.key != "opCode" }) { $1 })
        case "setSelectedProvider":
            let mvpd = arguments["mvpd"].flatMap { $0.isEmpty || $0 == "nil" ? nil : $0 }
            app.providerAnswered()
            enabler.setSelectedProvider(mvpd)
        case "getSelectedProvider": enabler.getSelectedProvider()
        case "handleExternalURL":
            guard let url = arguments["url"], !url.isEmpty else {
                throw HTTPError(.badRequest, code: "missing_argument", message: "handleExternalURL needs the url the login ended at.")
            }
            app.providerAnswered()
            enabler.handleExternalURL(url)
        case "logout":
            app.expect(.logout)
            enabler.logout()
        default:
            throw HTTPError(.badRequest, code: "unknown_method",
                message: "'\(method)' is not an AccessEnabler method this page can call.")
        }
    }

    /// Waits until the app has handled every call so far and its web view follows no logout chain; false when
    /// `timeout` passed first (the app is waiting on something, e.g. a person at a login page, or a slow backend).
    func settle(timeout: Duration = .seconds(20)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let app = state.withLock({ $0.app }) else { return true }
            func idle() async -> Bool {
                await app.enabler.settle()
                let snapshot = await app.enabler.snapshot()
                return !app.isFollowingLogout && !Self.isWorking(snapshot)
            }
            // A callback handled just now may have started more work: idle twice in a row to be sure.
            if await idle(), await idle() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Whether a flow waits on the backend (setRequestor's configuration, a token, logout) rather than on a person.
    static func isWorking(_ snapshot: FlowSnapshot) -> Bool {
        if case .configuring = snapshot.requestor { return true }
        switch snapshot.authentication {
        case .fetchingToken, .loggingOut: return true
        case .idle, .pickingProvider, .awaitingLogin, .polling, .unconfigured, .configuring, .ready, .failed, .other: return false
        }
    }

    /// Whether the app's web view is showing an MVPD login page (a sign-in can complete it).
    var isAtLoginPage: Bool { state.withLock { $0.app }?.pendingLoginURL != nil }

    /// The rules the running app's SDK judges its storage by now (``AccessEnabler/authenticationContext(now:)``);
    /// `nil` when it is not running or has not configured.
    func authenticationContext(now: Date) -> SSOContext? { state.withLock { $0.app }?.enabler.authenticationContext(now: now) }

    /// Completes the pending MVPD login with `username`/`password`, as the user would in the app's web view.
    func login(username: String, password: String) async throws(HTTPError) {
        guard let app = state.withLock({ $0.app }) else {
            throw HTTPError(.conflict, code: "app_not_running", message: "\(spec.name) is not running: start it first.")
        }
        do {
            try await app.signIn(username: username, password: password)
        } catch .signInFailed(let message) {
            throw HTTPError(.unprocessableEntity, code: "login_failed", message: "The MVPD login page did not accept the sign-in.",
                detail: message)
        } catch {
            throw HTTPError(.conflict, code: "no_login_pending",
                message: "The app is not at an MVPD login page. Call getAuthentication and pick an MVPD first.")
        }
    }

    /// What the page shows.
    var view: AppView {
        state.withLock { state in
            let app = state.app
            return AppView(
                id: spec.id, name: spec.name, bundleID: spec.app.bundleID, teamID: spec.app.teamID,
                platform: spec.app.platform.rawValue, requestorID: spec.requestorID, running: app != nil,
                sessionID: state.sessionID, deviceID: state.deviceID, deviceIDSource: state.deviceIDSource,
                storageDomain: (try? StorageDomain.of(spec.app, on: device).id)
                    ?? "\(device.name)/" + (spec.app.platform == .iOS ? "team:\(spec.app.teamID)" : "app:\(spec.app.bundleID)"),
                resources: spec.resources, mvpds: spec.mvpds, flow: state.progress,
                pending: AppView.Pending(
                    providerDialog: app?.pendingProviders?.map { .init(id: $0.ID, displayName: $0.displayName, logoURL: $0.logoURL) },
                    loginURL: app?.pendingLoginURL,
                    regcode: state.progress.regcode.map { AppView.Regcode(code: $0) }),
                callbacks: state.callbacks?.recent ?? [], authenticated: app?.authenticated)
        }
    }
}

/// An app as `GET /api/apps` shows it.
struct AppView: Encodable, Sendable {
    struct Pending: Encodable, Sendable {
        var providerDialog: [MVPDSummary]?
        var loginURL: String?
        var regcode: Regcode?
    }

    struct Regcode: Encodable, Sendable {
        var code: String
    }

    struct MVPDSummary: Encodable, Sendable, Equatable {
        var id: String
        var displayName: String
        var logoURL: String
    }

    struct CallbackLine: Encodable, Sendable {
        var name: String
        var summary: String
        var at: Date
    }

    var id: String
    var name: String
    var bundleID: String
    var teamID: String
    var platform: String
    var requestorID: String
    var running: Bool
    var sessionID: UUID?
    var deviceID: String?
    var deviceIDSource: String?
    var storageDomain: String
    var resources: [String]
    var mvpds: [ConsoleAppSpec.MVPDChoice]
    var flow: FlowProgress
    var pending: Pending
    var callbacks: [CallbackLine]
    /// The status of the app's last `setAuthenticationStatus`: what the app believes, not what its storage holds.
    var authenticated: Bool?
    /// What the storage the app reads holds now, by the SDK's rules (``SignInState``); the card shows this.
    var signIn: SignInState? = nil
}
