import AccessEnabler
import Foundation

/// Events shaped like a real history: app sessions that each run a flow (about 40 events in a row, a few sessions
/// interleaved, as several apps report at once), mixing calls, state changes, HTTP exchanges with XML answers, storage
/// writes, callbacks and tracking events over several Programmers and MVPDs.
struct HistoryWorkload {
    static let requestors = ["REF30", "SPORTS1", "KIDSNET", "NEWS24", "MOVIES"]
    static let mvpds = ["Cablevision", "Spectrum", "Dish", "Comcast", "Verizon"]
    private var sequence: [UUID: Int] = [:]
    /// The sessions reporting now, each with its number (which picks its app and device); each is replaced by a new
    /// one after its flow.
    private var sessions: [(id: UUID, number: Int)] = (0..<8).map { (UUID(), $0) }
    private var sessionsStarted = 8
    private var index = 0
    let start = Date().addingTimeInterval(-86_400)

    /// The next `count` events, round-robin over the sessions.
    mutating func next(_ count: Int) -> [EntitlementEvent] {
        (0..<count).map { _ in make() }
    }

    private mutating func make() -> EntitlementEvent {
        index += 1
        let slot = index % sessions.count
        if sequence[sessions[slot].id, default: 0] >= 40 {
            sequence[sessions[slot].id] = nil
            sessions[slot] = (UUID(), sessionsStarted)
            sessionsStarted += 1
        }
        let (session, sessionNumber) = sessions[slot]
        let number = sequence[session, default: 0]
        sequence[session] = number + 1
        let requestor = Self.requestors[index % Self.requestors.count]
        let mvpd = Self.mvpds[(index / 7) % Self.mvpds.count]
        // One app on one device per session, as an SDK instance reports.
        let app = AppIdentity(bundleID: "com.example.app\(sessionNumber % 40).ios", teamID: "TEAM\(sessionNumber % 8)")
        let kind = Self.kind(step: number, index: index, requestor: requestor, mvpd: mvpd)
        return EntitlementEvent(
            sequence: number, timestamp: start.addingTimeInterval(Double(index) * 0.01), sessionID: session,
            deviceID: "device-\(sessionNumber % 500)", app: app, requestorID: requestor, mvpdID: mvpd, kind: kind)
    }

    /// Step `step` of a flow (eight kinds in turn: a call, a state change, an HTTP exchange with an XML answer, a
    /// storage write, two callbacks, a tracking event, an error); `index` varies the values as a busy history would.
    static func kind(step: Int, index: Int, requestor: String, mvpd: String) -> EntitlementEvent.Kind {
        switch step % 8 {
        case 0: return .apiCall(name: "getAuthorization", arguments: ["resource": "news"])
        case 1: return .stateChanged(flow: "authentication", from: "idle", to: "awaitingLogin(\(mvpd))")
        case 2:
            return .httpExchange(exchange: HTTPExchange(
                method: "POST", url: "http://127.0.0.1:8081/adobe-services/1.0/authorizeDevice",
                parameters: ["requestor_id": requestor, "resource_id": "news", "device_id": "d\(index % 500)"],
                headers: ["X-Device-Info": "eyJtb2RlbCI6ImlQaG9uZSIsInZlcnNpb24iOiIxNyJ9"],
                status: index % 50 == 0 ? 403 : 200,
                responseBody: "<authorization><requestor>\(requestor)</requestor><resource>news</resource><ttl>3600</ttl></authorization>",
                failure: nil, durationMs: Double(index % 40) + 3.5))
        case 3: return .storageChanged(domain: "team TEAM\(index % 8)", change: "authZ token for news stored (replaces any earlier one)")
        case 4: return .callback(callback: .setToken(token: "<signatureInfo>…[redacted 409 chars]", resource: "news"))
        case 5: return .tracking(event: .authorizationDetection, data: ["YES", mvpd, "guid\(index % 3000)", "NO", "mobile", "ios", "iOS"])
        case 6: return .callback(callback: .setAuthenticationStatus(status: 1, errorCode: ""))
        default: return .error(code: "User Not Authorized Error", message: "0033: The customer is not authorized for premium-drama")
        }
    }
}
