import Crypto
import Foundation
import Locking
import MicroHTTP
import PassEvents
import PassProtocol
import WireDates

/// Records every exchange the backend serves as an ``EntitlementEvent`` (an `httpExchange` with ``ServedFacts``) and
/// hands it to a sink: the console's history in-process (`passconsole serve`), or an ``EventReporter`` posting to a
/// console's `/api/ingest` (`passconsole backend --report-to URL`).
///
/// **Sessions.** A customer's exchanges join into one session per device: the device the call names (`deviceId`,
/// `device_id`, `ap_21`, a `pass_sfp` this backend signed), or the device its registration code, its login in progress
/// or its user ID belongs to. So the second screen's MVPD pages and activation land in the TV's session. Calls that
/// name no device (dynamic client registration) are the session of the app registration (`client_id`, software
/// statement). The session ID is a name-based UUID of that key: the same device gives the same session after a restart.
///
/// **Sequences** are milliseconds since 1970, kept increasing per session (the next is at least the last plus one),
/// so a restarted backend never reuses one the history holds (the history drops an event whose sequence it has).
///
/// **Secrets** never leave: every event is redacted by ``EntitlementEvent/redacted()`` here, and a login form's
/// password field is never read.
public final class ExchangeRecorder: Sendable {
    let sink: any EventSink
    let service: BackendService
    private let state = Mutex(State())

    struct State {
        /// Per session key: the kind first seen and the last sequence given.
        var sessions: [String: (client: ClientKind, sequence: Int)] = [:]
        /// Client IDs registered by a software statement: their calls join the statement's session.
        var callers: [String: String] = [:]
    }

    /// How many session keys are remembered (each is a few dozen bytes); past it the memory starts again, which only
    /// costs pages of a device not seen since their kind (they then show as the backend's pages).
    static let rememberedSessions = 100_000

    public init(service: BackendService, sink: any EventSink) {
        self.service = service
        self.sink = sink
    }

    /// Records one exchange; `started` is when the request arrived.
    public func record(_ request: Request, _ response: Response, started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        guard let served = ServedExchange(request, response, service: service) else { return }
        let durationMs = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        let now = service.now()
        if !served.revoked.isEmpty {
            // One event per ended sign-in, in its device's session: the customer's timeline shows the revocation.
            for session in served.revoked {
                var facts = served
                facts.deviceID = session.deviceID
                facts.requestorID = session.requestorID
                facts.mvpdID = session.mvpdID
                facts.change = .revoked
                emit(facts, request, response, durationMs: durationMs, at: now, signIn: session)
            }
            return
        }
        let signIn = served.deviceID.flatMap { device in
            service.signIns.last { $0.deviceID == device && (served.requestorID == nil || $0.requestorID == served.requestorID) }
        }
        emit(served, request, response, durationMs: durationMs, at: now, signIn: signIn)
    }

    private func emit(
        _ served: ServedExchange, _ request: Request, _ response: Response, durationMs: Double, at now: Date, signIn: AuthSession?
    ) {
        let named: String
        if let device = served.deviceID {
            named = "device:" + device
        } else if let caller = served.caller {
            named = "app:" + caller
        } else if request.path.hasPrefix("/admin/") {
            named = "admin"
        } else {
            named = "address:" + request.remoteAddress
        }
        let (client, sequence, key) = state.withLock { state -> (ClientKind, Int, String) in
            if state.sessions.count > Self.rememberedSessions { state.sessions = [:] }
            if state.callers.count > Self.rememberedSessions { state.callers = [:] }
            if let issued = served.issuedClientID { state.callers["app:" + issued] = named }
            let key = state.callers[named] ?? named
            let known = state.sessions[key]
            let client = known?.client ?? served.client ?? (request.path.hasPrefix("/admin/") ? ClientKind(rawValue: "admin") : .web)
            let sequence = max((known?.sequence ?? 0) + 1, Int(now.timeIntervalSince1970 * 1000))
            state.sessions[key] = (client, sequence)
            return (client, sequence, key)
        }
        let mvpd = served.mvpdID ?? signIn?.mvpdID
        let facts = ServedFacts(
            recorder: .backend, client: client, operation: served.operation, registrationCode: served.registrationCode,
            passSFP: served.passSFP, userID: signIn?.guid, username: served.username ?? signIn?.username, change: served.change,
            pendingLogout: Self.pendingLogout(response) ? true : nil, token: signIn.map { Self.words($0, now: now) },
            advancedStatus: Self.advancedStatus(response))
        let exchange = HTTPExchange(
            method: request.method, url: Self.url(request), parameters: Self.parameters(request),
            headers: Dictionary(request.headers.filter { Self.keptHeaders.contains($0.name.lowercased()) }.map { ($0.name, $0.value) }) { a, _ in a },
            status: response.status.code, responseBody: Self.body(response), failure: nil, durationMs: durationMs,
            serverDate: now, errorCode: response.header("Authzf-Error-Code"), served: facts)
        let event = EntitlementEvent(
            sequence: sequence, timestamp: now, sessionID: Self.sessionID(key), deviceID: served.deviceID ?? (key.hasPrefix("app:") ? String(key.dropFirst(4)) : key),
            app: AppIdentity(bundleID: client.rawValue, teamID: "", platform: client.sdkPlatform ?? .iOS),
            requestorID: served.requestorID ?? signIn?.requestorID, mvpdID: mvpd, kind: .httpExchange(exchange: exchange))
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
        for item in request.queryItems + request.formItems where !isPassword(item.name) {
            result[item.name] = item.value
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

    static func pendingLogout(_ response: Response) -> Bool {
        response.bodyData.range(of: Data("<pendingLogout".utf8)) != nil
    }

    /// An error answer's own code (REST's `code`, the enhanced error format's `code`), when it gives one.
    static func advancedStatus(_ response: Response) -> String? {
        guard response.status.code >= 400, let json = try? JSONSerialization.jsonObject(with: response.bodyData) as? [String: Any]
        else { return nil }
        return (json["code"] as? String) ?? (json["error"] as? String)
    }

    static func words(_ session: AuthSession, now: Date) -> String {
        let state = session.revoked ? "revoked on the server" : session.expires <= now ? "expired" : "valid"
        return "authN token of \(session.username) at \(session.mvpdID) for \(session.requestorID), issued "
            + "\(ISODate.format(session.issued)), expires \(ISODate.format(session.expires)): \(state)"
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
