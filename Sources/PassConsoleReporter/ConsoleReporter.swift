import Foundation

/// Sends what an app on the vendor's AccessEnabler SDK does — each API call it makes, each delegate callback it gets —
/// to a PassConsole (`POST /api/ingest`), where support staff see the session beside the console's own apps.
///
/// For debug builds. Each delegate method and each SDK call forwards in one line; nothing waits on the network:
///
/// ```swift
/// let reporter = ConsoleReporter(console: URL(string: "http://192.168.1.20:8080")!, accessToken: token,
///     app: .init(teamID: "TEAM1234"), deviceID: UIDevice.current.identifierForVendor?.uuidString ?? "unknown")
///
/// reporter.call(.getAuthorization, ["resource": resource])
/// accessEnabler.getAuthorization(resource)
///
/// func setToken(_ token: String, forResource resource: String) {
///     reporter.callback(.setToken(token: token, resource: resource))
///     …
/// }
/// ```
///
/// Events wait in a bounded queue and leave in batches; while the console cannot be reached they wait, and past
/// ``Configuration/capacity`` the oldest go — counted in ``counts`` and told to the console (`X-PassConsole-Dropped`)
/// once it answers. Failed requests are tried again with exponential back-off (``RetryPolicy``). Secrets are cut
/// before an event is queued unless ``Configuration/redactsSecrets`` is off.
public final class ConsoleReporter: @unchecked Sendable {
    /// The configuration, every number in its range.
    public let configuration: Configuration
    /// This run of the app: one session in the console.
    public let sessionID: UUID

    let client: IngestClient
    private let lock = NSLock()
    /// Guarded by `lock`; read and changed only through ``locked(_:)``.
    private var state: State

    /// What the reporter keeps between calls.
    struct State {
        var queue: EventQueue
        var sequence = 0
        var requestorID: String?
        var mvpdID: String?
        var sent = 0
        var lastError: String?
        var lastRefusal: String?
        /// Failed tries in a row (no answer, 5xx, 408, 429, a refusal).
        var failures = 0
        /// Tries of the batch the console refuses now.
        var refusals = 0
        /// Events per request now (halved when the console finds a body too large).
        var batchLimit: Int
        var pause: Pause?
        var pauseCount = 0
        var flushWaiters: [CheckedContinuation<Bool, Never>] = []
        /// Set by ``finish(timeout:)``: the uptime after which the sender stops trying.
        var finishDeadline: TimeInterval?
        var finishWaiters: [CheckedContinuation<Void, Never>] = []
        var stopped = false
    }

    /// A reporter sending to the console at `configuration.console`; its sender starts at once.
    public init(configuration: Configuration) {
        let configuration = configuration.clamped
        self.configuration = configuration
        sessionID = UUID()
        client = IngestClient(console: configuration.console, accessToken: configuration.accessToken,
            timeout: configuration.requestTimeout)
        state = State(queue: EventQueue(capacity: configuration.capacity), batchLimit: configuration.batchSize)
        Task.detached { [self] in await run() }
    }

    /// A reporter with the default bounds and retry policy.
    public convenience init(console: URL, accessToken: String? = nil, app: App, deviceID: String) {
        self.init(configuration: Configuration(console: console, accessToken: accessToken, app: app, deviceID: deviceID))
    }

    // MARK: - What the app reports

    /// Records an API call the app makes: `reporter.call(.getAuthorization, ["resource": resource])`. Values are
    /// written as text (an array comma-separated, `nil` as `nil`). `setRequestor`'s `requestorID` and
    /// `setSelectedProvider`'s `mvpd` tag this event and the ones after it.
    public func call(_ method: Method, _ arguments: [String: Any?] = [:]) {
        var written: [String: String] = [:]
        for (name, value) in arguments {
            let text = Self.argumentText(value)
            written[name] = configuration.redactsSecrets ? SecretRedaction.argument(named: name, text) : text
        }
        record(WireEvent.apiCall(method.rawValue, arguments: written)) { state in
            if method == .setRequestor, let requestor = written["requestorID"] { state.requestorID = requestor }
            if method == .setSelectedProvider, let mvpd = written["mvpd"] {
                state.mvpdID = mvpd.isEmpty || mvpd == "nil" ? nil : mvpd
            }
        }
    }

    /// Records a delegate callback the app got: `reporter.callback(.setToken(token: token, resource: resource))`.
    /// `sendTrackingData` is also recorded as a `tracking` event, as the SDK records it.
    public func callback(_ callback: Callback) {
        if let problem = callback.problem {
            record(WireEvent.error(code: "reporter.unknownCallback", message: problem))
            return
        }
        var arguments = callback.arguments
        if configuration.redactsSecrets {
            for name in callback.secrets { if case .string(let value)? = arguments[name] { arguments[name] = .string(SecretRedaction.shorten(value)) } }
        }
        record(WireEvent.callback(callback.name, arguments: arguments)) { state in
            if let selected = callback.selectedMVPD { state.mvpdID = selected }
        }
        if let tracking = callback.tracking { record(WireEvent.tracking(tracking.event, data: tracking.data)) }
    }

    /// The Programmer later events are tagged with (set by `setRequestor`'s `requestorID` too).
    public var requestorID: String? {
        get { locked { $0.requestorID } }
        set { locked { $0.requestorID = newValue } }
    }

    /// The MVPD later events are tagged with (set by `setSelectedProvider` and `selectedProvider` too).
    public var mvpdID: String? {
        get { locked { $0.mvpdID } }
        set { locked { $0.mvpdID = newValue } }
    }

    // MARK: - What became of it

    /// Where the events are.
    public struct Counts: Sendable, Equatable {
        /// Events the console has (stored, or had already).
        public var sent: Int
        /// Events waiting to be sent.
        public var queued: Int
        /// Events dropped because the queue was full (the oldest first).
        public var dropped: Int
        /// Events the console refused (a 4xx other than 408/429 after ``RetryPolicy/refusedAttempts`` tries, or a line
        /// it could not read).
        public var refused: Int
        /// Failed tries in a row; 0 once a request succeeds.
        public var failures: Int

        public init(sent: Int, queued: Int, dropped: Int, refused: Int, failures: Int) {
            self.sent = sent
            self.queued = queued
            self.dropped = dropped
            self.refused = refused
            self.failures = failures
        }
    }

    /// The counts now.
    public var counts: Counts {
        locked { Counts(sent: $0.sent, queued: $0.queue.count, dropped: $0.queue.dropped, refused: $0.queue.refused,
            failures: $0.failures) }
    }

    /// Why the last request failed, or what the console said it could not read; nil after a clean success.
    public var lastError: String? { locked { $0.lastError } }

    /// Why the console last refused events for good (``Counts/refused``), e.g. `the console answered 401
    /// (token_required: …); 5 events set aside`; kept after later successes.
    public var lastRefusal: String? { locked { $0.lastRefusal } }

    /// Sends what is queued now, without waiting for a batch to fill or a back-off to end. Returns true once the
    /// queue is empty, false as soon as a try fails (the events stay queued and the sender tries again later).
    @discardableResult
    public func flush() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let (answer, pause) = locked { state -> (Bool?, Pause?) in
                if state.queue.isEmpty { return (true, nil) }
                if state.stopped { return (false, nil) }
                state.flushWaiters.append(continuation)
                return (nil, state.takePause(of: [.idle, .gathering, .backingOff]))
            }
            if let answer { continuation.resume(returning: answer) }
            pause?.continuation.resume()
        }
    }

    /// Sends what is left, trying for up to `timeout` seconds (0…600; a request already on its way may take its own
    /// timeout to end), then stops the sender: events reported afterwards are ignored.
    public func finish(timeout: TimeInterval = 5) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (stopped, pause) = locked { state -> (Bool, Pause?) in
                if state.stopped { return (true, nil) }
                state.finishDeadline = ProcessInfo.processInfo.systemUptime + timeout.clamped(to: 0...600)
                state.finishWaiters.append(continuation)
                return (false, state.takePause(of: [.idle, .gathering, .backingOff]))
            }
            if stopped { continuation.resume() }
            pause?.continuation.resume()
        }
    }

    // MARK: - Recording

    /// Queues an event of `kind`, after `tag` updated what events are tagged with; wakes an idle sender.
    private func record(_ kind: WireJSON, tag: (inout State) -> Void = { _ in }) {
        let pause = locked { state -> Pause? in
            guard !state.stopped else { return nil }
            tag(&state)
            append(kind, to: &state)
            if state.queue.count >= state.batchLimit { return state.takePause(of: [.idle, .gathering]) }
            return state.takePause(of: [.idle])
        }
        pause?.continuation.resume()
    }

    /// Appends an event of `kind` with the next sequence number (the caller holds the lock).
    func append(_ kind: WireJSON, note: Bool = false, to state: inout State) {
        state.sequence += 1
        let line = WireEvent.line(
            sequence: state.sequence, timestamp: Date(), sessionID: sessionID, deviceID: configuration.deviceID,
            app: configuration.app, requestorID: state.requestorID, mvpdID: state.mvpdID, kind: kind)
        state.queue.append(QueuedEvent(sequence: state.sequence, line: line, isNote: note))
    }

    /// An argument's value as the wire's text.
    static func argumentText(_ value: Any?) -> String {
        switch WireJSON(any: value) {
        case .null: "nil"
        case .string(let text): text
        case .array(let items): items.map { if case .string(let text) = $0 { text } else { $0.text } }.joined(separator: ",")
        case let other: other.text
        }
    }

    /// Runs `body` with the state, under the lock.
    func locked<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }
}
