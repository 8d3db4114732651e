import Crypto
import Foundation
import Locking
import MicroHTTP
import PassEvents
import PassProtocol

/// Records exchanges as ``EntitlementEvent``s (an `httpExchange` with ``ServedFacts``) and hands them to a sink: a
/// console's history in-process, or an ``EventReporter`` posting to a console's `/api/ingest`. The backend records
/// what it serves (with its state as ``ExchangeContext``); the proxy records what it forwards (the wire alone).
///
/// **Sessions.** A customer's exchanges join into one session per device: the device the call names (`deviceId`,
/// `device_id`, `ap_21`, a `pass_sfp`), or the device its registration code, its login in progress or its user ID
/// belongs to. So the second screen's pages and activation land in the TV's session. Calls that name no device
/// (dynamic client registration) are the session of the app registration (software statement, then its client ID).
/// The session ID is a name-based UUID of that key: the same device gives the same session after a restart.
///
/// **Sequences** are milliseconds since 1970, kept increasing per session (the next is at least the last plus one),
/// so a restarted recorder never reuses one the history holds (the history drops an event whose sequence it has).
///
/// **Secrets** never leave: every event is redacted by ``EntitlementEvent/redacted()`` here, a login form's password
/// field is never read, and cookies and `Authorization` headers are not kept.
public final class ExchangeRecorder: Sendable {
    public let recorder: ServedFacts.Recorder
    let sink: any EventSink
    let context: (any ExchangeContext)?
    let now: @Sendable () -> Date
    private let state = Mutex(State())
    /// What was answered, waiting to become events (off the answer's path).
    private let queue: RecordingQueue<Captured>

    /// The recorder the queue's thread works for, held weakly (the thread outlives no recorder's use of it).
    private final class Target: @unchecked Sendable { weak var recorder: ExchangeRecorder? }

    struct Captured: Sendable {
        var request: Request
        var response: Response
        var durationMs: Double
        var at: Date
        var rule: String?
        var failure: String?
    }

    /// Exchanges not recorded because more than the queue's capacity waited (a service answering faster than its
    /// recording keeps up, for longer than the queue holds).
    public var droppedCount: Int { queue.droppedCount }

    /// A session the recorder gave events to (structs, not tuples, through the lock: see ``RecordingQueue``).
    struct Session {
        var client: ClientKind
        var sequence: Int
        var id: UUID
        var key = ""
    }

    struct State {
        /// Per session key: the kind first seen and the last sequence given.
        var sessions: [String: Session] = [:]
        /// Client IDs registered by a software statement: their calls join the statement's session.
        var callers: [String: String] = [:]
        /// Registration codes the recorder saw issued, and their device (a proxy has no other way to know).
        var codes: [String: String] = [:]
    }

    /// How the recording proxy names itself in `Via`.
    public static let proxyVia = "passconsole-proxy"

    /// How many session keys, callers and codes are remembered (each a few dozen bytes); past it the memory starts
    /// again, which only costs pages of a device not seen since their kind.
    static let remembered = 100_000

    /// - Parameter queueCapacity: answered exchanges that may wait for the recording thread (``queueCapacity`` by
    ///   default); past it the oldest are dropped and told to `sink` as a count (``EventSink/lost(_:)``).
    public init(
        _ recorder: ServedFacts.Recorder, sink: any EventSink, context: (any ExchangeContext)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }, queueCapacity: Int = ExchangeRecorder.queueCapacity
    ) {
        self.recorder = recorder
        self.sink = sink
        self.context = context
        self.now = now
        let target = Target()
        queue = RecordingQueue(capacity: queueCapacity) { batch, dropped in
            guard let recorder = target.recorder else { return }
            // Exchanges the queue had to drop reach the console as a count, before the events that came after them.
            if dropped > 0 { recorder.sink.lost(dropped) }
            for item in batch { recorder.process(item) }
        }
        target.recorder = self
    }

    /// How many answered exchanges may wait for the recording thread.
    public static let queueCapacity = 100_000

    /// Records one exchange; `started` is when the request arrived, `rule` a rule of the recorder that acted on it.
    /// Returns at once: the event is made on the recording thread.
    /// `failure` says why no answer went back (the exchange is recorded without a status).
    public func record(
        _ request: Request, _ response: Response, started: ContinuousClock.Instant, rule: String? = nil, failure: String? = nil
    ) {
        // A recording proxy in front records the exchange itself (it says so in `Via`): one record per exchange.
        if recorder != .proxy, let via = request.header("Via"), via.contains(Self.proxyVia) { return }
        let elapsed = ContinuousClock.now - started
        let durationMs = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        queue.add(Captured(request: request, response: response, durationMs: durationMs, at: now(), rule: rule, failure: failure))
    }

    private func process(_ captured: Captured) {
        let (request, response, durationMs, now, rule) = (captured.request, captured.response, captured.durationMs, captured.at, captured.rule)
        let failure = captured.failure
        guard var reading = ExchangeReading(request, response) else { return }
        context?.complete(&reading, request)
        if reading.deviceID == nil, let code = reading.registrationCode {
            reading.deviceID = state.withLock { $0.codes[code.uppercased()] }
        }
        if request.path == "/admin/sessions/revoke", let context {
            // One event per ended sign-in, in its device's session: the customer's timeline shows the revocation.
            for signIn in context.revoked(by: request) {
                var facts = reading
                facts.deviceID = signIn.deviceID
                facts.requestorID = signIn.requestorID
                facts.mvpdID = signIn.mvpdID
                facts.change = .revoked
                emit(facts, request, response, durationMs: durationMs, at: now, signIn: signIn, rule: rule, failure: failure)
            }
            return
        }
        let signIn = reading.deviceID.flatMap { context?.signIn(device: $0, requestor: reading.requestorID) }
        emit(reading, request, response, durationMs: durationMs, at: now, signIn: signIn, rule: rule, failure: failure)
    }

    private func emit(
        _ reading: ExchangeReading, _ request: Request, _ response: Response, durationMs: Double, at now: Date,
        signIn: SignInFacts?, rule: String?, failure: String?
    ) {
        let named: String
        if let device = reading.deviceID {
            named = "device:" + device
        } else if let caller = reading.caller {
            named = "app:" + caller
        } else if request.path.hasPathPrefix("/admin/") {
            named = "admin"
        } else {
            named = "address:" + request.remoteAddress
        }
        let slot = state.withLock { state -> Session in
            if state.sessions.count > Self.remembered { state.sessions = [:] }
            if state.callers.count > Self.remembered { state.callers = [:] }
            if state.codes.count > Self.remembered { state.codes = [:] }
            if let issued = reading.issuedClientID { state.callers["app:" + issued] = named }
            if let issued = reading.issuedCode { state.codes[issued.code.uppercased()] = issued.deviceID }
            let key = state.callers[named] ?? named
            let known = state.sessions[key]
            let client = known?.client ?? reading.client ?? (request.path.hasPathPrefix("/admin/") ? ClientKind(rawValue: "admin") : .web)
            let sequence = max((known?.sequence ?? 0) + 1, Int(now.timeIntervalSince1970 * 1000))
            let session = Session(client: client, sequence: sequence, id: known?.id ?? Self.sessionID(key), key: key)
            state.sessions[key] = session
            return session
        }
        let (client, sequence, key, sessionID) = (slot.client, slot.sequence, slot.key, slot.id)
        // The sign-in the service knows; without a service (a proxy), the token the answer carries, decoded before the
        // body is redacted.
        let token = signIn == nil && context == nil && response.status.code < 300 ? WireToken(in: response.bodyData) : nil
        let facts = ServedFacts(
            recorder: recorder, client: client, operation: reading.operation, registrationCode: reading.registrationCode,
            passSFP: reading.passSFP, userID: signIn?.userID ?? token?.userID, username: reading.username ?? signIn?.username,
            change: reading.change, pendingLogout: Self.pendingLogout(response) ? true : nil, token: token?.words ?? signIn?.token,
            advancedStatus: Self.advancedStatus(response), rule: rule)
        let exchange = HTTPExchange(
            method: request.method, url: Self.url(request), parameters: Self.parameters(request),
            headers: Self.keptHeaders(request),
            status: failure == nil ? response.status.code : nil, responseBody: Self.body(response), failure: failure, durationMs: durationMs,
            serverDate: now, errorCode: response.header("Authzf-Error-Code"), served: facts)
        let event = EntitlementEvent(
            sequence: sequence, timestamp: now, sessionID: sessionID,
            deviceID: reading.deviceID ?? (key.hasPrefix("app:") ? String(key.dropFirst(4)) : key),
            app: AppIdentity(bundleID: client.rawValue, teamID: "", platform: client.sdkPlatform ?? .iOS),
            requestorID: reading.requestorID ?? signIn?.requestorID, mvpdID: reading.mvpdID ?? signIn?.mvpdID,
            kind: .httpExchange(exchange: exchange))
        sink.emit(event.redacted())
    }

    // MARK: - The exchange's parts

    /// Request headers worth keeping (what the protocols reveal); cookies and authorization are not kept at all.
    static let keptHeaders: Set<String> = [
        "user-agent", "x-device-info", "ap-visitor-identifier", "ap-device-identifier", "ap_42", "ap_11", "ap_z", "ap_21",
        "origin", "referer", "content-type",
    ]

    /// Query and form parameters, password fields left out entirely.
    static func parameters(_ request: Request) -> [String: String] {
        var result: [String: String] = [:]
        // Two loops, not a concatenated array: this runs for every exchange recorded.
        for item in request.queryItems where !isPassword(item.name) { result[item.name] = item.value }
        for item in request.formItems where !isPassword(item.name) { result[item.name] = item.value }
        return result
    }

    /// The request headers worth keeping, the first of each name.
    static func keptHeaders(_ request: Request) -> [String: String] {
        var result: [String: String] = [:]
        for header in request.headers where result[header.name] == nil && keptHeaders.contains(header.name.lowercased()) {
            result[header.name] = header.value
        }
        return result
    }

    static func isPassword(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.contains("password") || lower.contains("passwd") || lower == "idtoken2"
    }

    static func url(_ request: Request) -> String {
        request.queryItems.isEmpty ? request.path : request.path + "?" + FormEncoding.encode(request.queryItems)
    }

    /// Text answers, cut at 4,000 characters (``EntitlementEvent/redacted()`` cuts tokens out).
    static func body(_ response: Response) -> String? {
        let data = response.bodyData
        guard !data.isEmpty else { return nil }
        let type = response.header("Content-Type") ?? ""
        guard type.isEmpty || type.contains("json") || type.contains("xml") || type.contains("text") else {
            return "(\(data.count) bytes of \(type))"
        }
        return String(decoding: data.prefix(4001), as: UTF8.self)
    }

    static let pendingLogoutMarker = Array("<pendingLogout".utf8)

    static func pendingLogout(_ response: Response) -> Bool {
        ByteSearch.contains(pendingLogoutMarker, in: response.bodyData)
    }

    /// An error answer's own code (REST's `code`, OAuth's `error`, the enhanced error format's `code`), when it gives one.
    static func advancedStatus(_ response: Response) -> String? {
        guard response.status.code >= 400, let json = try? JSONSerialization.jsonObject(with: response.bodyData) as? [String: Any]
        else { return nil }
        return (json["code"] as? String) ?? (json["error"] as? String)
    }

    /// A name-based UUID of `key` (SHA-256, version 8 bits), stable across runs.
    static func sessionID(_ key: String) -> UUID {
        var bytes = Array(SHA256.hash(data: Data(("passbackend-session|" + key).utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
            bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
