import Locking
import Foundation
import Logging
import PassProtocol

/// The one engine behind the delegate API and the async API: owns the flows' state, the token store and the
/// network client; publishes every step as an ``EntitlementEvent`` and delivers callbacks through the dispatcher.
///
/// Operations run one at a time in the order the app made the calls (``enqueue(_:)``); the configuration call of
/// `setRequestor` runs beside them so calls made meanwhile can wait in the ``RequestorStateMachine``.
actor EntitlementEngine {
    let configuration: AccessEnablerConfiguration
    let dispatcher: CallbackDispatcher
    let broadcaster: EventBroadcaster
    let logger: Logger
    let sessionID = UUID()
    let store: TokenStore
    /// Writes the flows' storage changes behind them, when an operation ends (see ``StorageWriter``).
    let writer: StorageWriter

    var requestorMachine = RequestorStateMachine()
    var requestor: ConfiguredRequestor? { didSet { heldRequestor.withLock { [requestor] in $0 = requestor } } }
    /// ``requestor`` as last set, readable from any thread (``AccessEnabler/authenticationContext(now:)``).
    nonisolated let heldRequestor = Mutex<ConfiguredRequestor?>(nil)
    /// Where authentication stands; changed only through ``advanceAuthentication(_:)``.
    private(set) var authenticationMachine = AuthenticationStateMachine()
    var authentication: AuthenticationStateMachine.State { authenticationMachine.state }
    /// `getAuthorization` calls waiting for a login to finish.
    var waitingAuthorizations: [(resource: String, data: [String: String]?)] = []
    /// The MVPD the app chose with `setSelectedProvider` before a `getAuthentication` needed it.
    var preselectedMvpd: String?
    /// The redirect URL the login or logout web flow in progress ends at (the app's custom scheme for an MVPD that
    /// requires SFSafariViewController); `handleExternalURL` refuses another one.
    var expectedRedirect: String?
    /// The MVPD the user signed in with in the Apple TV's own dialog (cookbook flow E), until the sign-in it starts
    /// is stored: that sign-in is then marked as the platform's, so logout says VSA203 (flow I).
    var platformPick: String?
    var options: [String: String] = [:]
    /// `getAuthentication(withData:)` as JSON, sent as `generic_data`.
    var genericData: String?
    var tvosCredentials: (secret: String, publicKey: String)?
    var sequence = 0
    /// Async-API callers waiting for their callback.
    var waiters: [CallbackWaiter] = []
    /// Operation tickets: operations run one at a time, in the order their tickets were taken.
    private var turns = OperationTurns()
    var pollTask: Task<Void, Never>?
    var transport: HTTPTransport?
    /// REST API v2 (``AccessEnablerConfiguration/protocol``): the app's registration, access token and ``V2State``;
    /// nil on the seeds' protocol.
    let registration: V2Registration?
    /// REST API v2: the login in progress (its session's code, nil when the profile is read by MVPD) and its MVPD.
    var v2Login: (code: String?, mvpd: String)?
    /// REST API v2: when each resource's last permit decision of this run ends (`getMetadata` op code 1).
    var v2DecisionExpiries: [String: Date] = [:]

    init(configuration: AccessEnablerConfiguration, dispatcher: CallbackDispatcher, broadcaster: EventBroadcaster, logger: Logger) {
        self.configuration = configuration
        self.dispatcher = dispatcher
        self.broadcaster = broadcaster
        self.logger = logger
        let store = TokenStore(file: configuration.storage, domain: configuration.storageDomain)
        self.store = store
        writer = StorageWriter.shared(for: store, deadline: configuration.storageWriteDeadline)
        registration = configuration.protocol == .restV2
            ? V2Registration(softwareStatement: configuration.softwareStatement, storage: configuration.registrationStorage, now: configuration.now)
            : nil
        registration?.setReporter { [weak self] code, message in
            Task { await self?.fail(code, message) }
        }
    }

    /// Whether this engine speaks REST API v2.
    var onRESTv2: Bool { registration != nil }

    var platform: Platform { configuration.app.platform }
    var deviceID: String { configuration.deviceID }
    func now() -> Date { configuration.now() }

    // MARK: - Ordering

    /// Runs `operation` in a task of its own after every operation enqueued before it.
    func enqueue(_ operation: @escaping @Sendable () async -> Void) {
        let ticket = turns.take()
        Task { await self.run(ticket, operation) }
    }

    /// Runs `operation` on the calling task, after every operation enqueued before it (the async API's calls, and the
    /// intake's calls that hold the intake until they are done: the caller waits anyway, so no task is made and woken
    /// for it).
    func runInOrder(_ operation: @Sendable () async -> Void) async {
        await run(turns.take(), operation)
    }

    private func run(_ ticket: Int, _ operation: () async -> Void) async {
        if !turns.isNext(ticket) { await withCheckedContinuation { turns.wait(ticket, $0) } }
        await operation()
        turns.finish(ticket)
        writer.flushSoon()  // what the operation stored lands now, in one write, behind its last callback
    }

    /// Waits until every operation enqueued so far, and any enqueued meanwhile, has finished (tests and the async API
    /// use it).
    func settle() async {
        guard !turns.isIdle else { return }
        await withCheckedContinuation { turns.waitForIdle($0) }
    }

    // MARK: - Events and callbacks

    func emit(_ kind: EntitlementEvent.Kind, mvpd: String? = nil) {
        sequence += 1
        let event = EntitlementEvent(
            sequence: sequence, timestamp: now(), sessionID: sessionID, deviceID: deviceID, app: configuration.app,
            requestorID: requestor?.id ?? pendingRequestorID, mvpdID: mvpd ?? currentMvpdForEvents, kind: kind)
        broadcaster.publish(event)  // redacted on the way out
    }

    var pendingRequestorID: String?

    var currentMvpdForEvents: String? {
        switch authentication {
        case .awaitingLogin(let mvpd, _), .fetchingToken(let mvpd), .polling(let mvpd, _): mvpd
        default: nil
        }
    }

    /// Delivers a callback on the delegate queue and records it.
    func callback(_ callback: EntitlementCallback, mvpd: String? = nil) {
        emit(.callback(callback: callback), mvpd: mvpd)
        if case .sendTrackingData(let event, let data) = callback { emit(.tracking(event: event, data: data), mvpd: mvpd) }
        dispatcher.deliver(callback)
        resumeWaiter(with: callback)
    }

    /// An advanced status on the status delegate (spec §2.2).
    func status(_ code: AdvancedStatusCode, message: String? = nil, extra: [String: String] = [:]) {
        var dictionary = ["errorId": code.rawValue, "id": code.rawValue, "level": code.level.rawValue]
        if let message { dictionary["message"] = message }
        dictionary.merge(extra) { $1 }
        callback(.status(statusDictionary: dictionary))
    }

    func transition(_ flow: FlowKind, from: FlowState, to: FlowState) {
        guard from != to else { return }
        emit(.stateChanged(flow: flow, from: from, to: to))
    }

    /// Feeds the authentication machine one input and publishes the state change, if any.
    @discardableResult
    func advanceAuthentication<T>(_ input: (inout AuthenticationStateMachine) -> T) -> T {
        let previous = authenticationMachine.flowState
        let result = input(&authenticationMachine)
        transition(.authentication, from: previous, to: authenticationMachine.flowState)
        return result
    }

    func fail(_ code: String, _ message: String, mvpd: String? = nil) {
        logger.warning("\(message)", metadata: ["code": "\(code)", "requestor": "\(requestor?.id ?? "-")"])
        emit(.error(code: code, message: message), mvpd: mvpd)
    }

    // MARK: - Storage

    func loadStorage() -> TokenStorage {
        writer.expected ?? loadStorageFile()
    }

    /// The storage file as it is (another app may have changed it); empty, with a `storage` error, when unreadable.
    private func loadStorageFile() -> TokenStorage {
        do { return try writer.reader.load() } catch {
            fail("storage", "Token storage (\(store.domain)) cannot be read: \(error). Treating it as empty.")
            return TokenStorage()
        }
    }

    /// Changes the stored tokens and records what changed (nothing is recorded or written when nothing changed). The
    /// engine (and every other AccessEnabler of this process on the same storage) reads the change at once; the file
    /// is written when the operation ends (``StorageWriter``). A failed write leaves the last good state on disk and is
    /// reported as a `storage` error.
    func updateStorage(_ what: String, mvpd: String? = nil, _ change: @escaping @Sendable (inout TokenStorage) -> Void) {
        let domain = store.domain
        let changed = writer.write(change, load: loadStorageFile) { [weak self] error in
            Task { await self?.fail("storage", "Token storage (\(domain)) could not be written (\(what)): \(error)") }
        }
        if changed != nil { emit(.storageChanged(domain: domain, change: what), mvpd: mvpd) }
    }

    /// ``updateStorage(_:mvpd:_:)`` written before it returns, for the rules whose outcome decides what happens next
    /// (importer, sanitizer, SSO copy): `change` runs on the file's current value under its lock. These rules run at
    /// every setRequestor and seldom change anything: `change` is tried on the storage as last read first, and the
    /// file is locked only when it would change (it may run twice, so it must set its outputs, not add to them).
    func updateStorageNow(_ what: String, mvpd: String? = nil, _ change: (inout TokenStorage) -> Void) {
        guard loadStorage().changed(by: change) != nil else { return }
        do {
            if try writer.writeNow(change).changed { emit(.storageChanged(domain: store.domain, change: what), mvpd: mvpd) }
        } catch {
            fail("storage", "Token storage (\(store.domain)) could not be written (\(what)): \(error)")
        }
    }

    // MARK: - Client

    /// The HTTP transport, kept for the engine's life so connections are reused; rebuilt when options change.
    func makeTransport() -> HTTPTransport {
        if let transport { return transport }
        let made = buildTransport()
        transport = made
        return made
    }

    private func buildTransport() -> HTTPTransport {
        // On v2 a device without X-Device-Info is an `unknown` platform to the service (FAQ #headers-faq3): the
        // platform's own description goes instead; v2 has no AP-Application-Profile (the checklist).
        let deviceInfo = options[PassConstants.OPTION_DEVICE_INFO] ?? configuration.deviceInfo?.base64Encoded()
            ?? (onRESTv2 ? Self.defaultDeviceInfo(platform).base64Encoded() : nil)
        let visitorID = options[PassConstants.OPTION_VISITOR_ID]
        let profile = onRESTv2 ? nil : options[PassConstants.OPTION_PROFILE]
        return HTTPTransport(
            timeout: configuration.requestTimeout, retry: configuration.retry,
            commonHeaders: {
                var headers = ["User-Agent": "AdobePassNativeClient/\(AccessEnabler.version) (PassConsole)"]
                if let deviceInfo { headers["X-Device-Info"] = deviceInfo }
                if let visitorID { headers[PassConstants.HEADER_VISITOR_ID] = visitorID }
                if let profile { headers["AP-Application-Profile"] = profile }
                return headers
            },
            record: { [weak self] exchange in
                // A request made for an MVPD names it (`mso_id`): its exchange is that MVPD's, so `mvpd:` filters and
                // the console's per-MVPD views find authorization failures too, not only the login's.
                await self?.emit(.httpExchange(exchange: exchange), mvpd: exchange.parameters["mso_id"] ?? Self.v2MVPD(of: exchange))
            })
    }

    /// The device as the platform describes it, sent on v2 when the app set no `device_info`.
    static func defaultDeviceInfo(_ platform: Platform) -> DeviceInfo {
        var info = DeviceInfo(model: platform == .tvOS ? "AppleTV" : "iPhone", osName: platform == .tvOS ? "tvOS" : "iOS")
        info.primaryHardwareType = platform == .tvOS ? "SetTopBox" : "MobilePhone"
        info.manufacturer = "Apple"
        info.vendor = "Apple"
        return info
    }

    /// The MVPD a REST API v2 exchange is about: its form's `mvpd`, or the last path segment of
    /// `/decisions/…/{mvpd}`, `/profiles/{mvpd}`, `/logout/{mvpd}`.
    static func v2MVPD(of exchange: HTTPExchange) -> String? {
        if let mvpd = exchange.parameters["mvpd"] { return mvpd }
        guard let path = URLComponents(string: exchange.url)?.path, path.hasPrefix("/api/v2/") else { return nil }
        let segments = path.split(separator: "/").map(String.init)
        guard segments.count >= 5 else { return nil }
        switch segments[3] {
        case "decisions" where segments.count == 6, "logout" where segments.count == 5: return segments.last?.removingPercentEncoding
        case "profiles" where segments.count == 5 && segments[4] != "code": return segments[4].removingPercentEncoding
        default: return nil
        }
    }

    func client(base: URL? = nil) -> SDKClient {
        SDKClient(base: base ?? requestor?.serviceProvider ?? configuration.defaultServiceProvider, transport: makeTransport(), platform: platform)
    }

    /// The client for calls about `mvpd`: the service provider that offered it (several may be configured).
    func client(for mvpd: String?) -> SDKClient {
        client(base: mvpd.flatMap { requestor?.mvpdServiceProviders[$0] })
    }
}

/// The requestor `setRequestor` configured: its ID, service provider and MVPD list.
struct ConfiguredRequestor: Sendable {
    var id: String
    var serviceProvider: URL
    var configuration: RequestorConfiguration
    var mvpds: [MVPD]
    /// The service provider each MVPD came from (setRequestor with several providers).
    var mvpdServiceProviders: [String: URL] = [:]

    var allowedMvpds: Set<String> { Set(mvpds.map(\.ID)) }
    func mvpd(_ id: String) -> MVPD? { mvpds.first { $0.ID == id } }
    var tracking: TrackingData {
        TrackingData(deviceType: TrackingDeviceType.reported(configuration.device).rawValue, clientType: configuration.clientType,
            os: configuration.os)
    }
}

extension TokenStorage {
    /// The storage after `change`, or nil when `change` leaves it as it is.
    fileprivate func changed(by change: (inout TokenStorage) -> Void) -> TokenStorage? {
        var after = self
        change(&after)
        return after == self ? nil : after
    }
}
