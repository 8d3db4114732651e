import AccessEnabler
import Foundation
import PassHistory

/// A history of many sessions that differ in every column of the Sessions list (app, Programmer, MVPD, user, outcome,
/// event count, last seen), for tests of sorting over all of them rather than over one page.
enum GeneratedSessions {
    static let apps = [
        AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234"),
        AppIdentity(bundleID: "com.example.news.sports", teamID: "TEAM1234"),
        AppIdentity(bundleID: "com.kidsnet.tv.app", teamID: "KIDS5678", platform: .tvOS),
        AppIdentity(bundleID: "com.other.zeta.player", teamID: "OTHER999"),
    ]
    static let programmers: [String?] = ["REF30", "SPORTS1", "KIDSNET", nil, "ref31"]
    static let mvpds: [String?] = ["Dish", "Cablevision", nil, "ATT", "dish2"]

    /// `count` sessions, one a second from three hours before `now` (the last one the newest), each with 1–20 events;
    /// the oldest has ``busiest`` events, more than any other, so a list sorted by last seen does not show it first.
    /// Returns the busiest session's ID.
    @discardableResult
    static func append(_ count: Int, to history: any EventHistory, now: Date, busiest: Int = 150) async throws -> UUID {
        let start = now.addingTimeInterval(-3 * 3600)
        var events: [EntitlementEvent] = []
        var busiestID = UUID()
        for index in 0..<count {
            let session = UUID()
            if index == 0 { busiestID = session }
            let app = apps[index % apps.count]
            let requestor = programmers[(index / 4) % programmers.count]
            let mvpd = mvpds[(index / 3) % mvpds.count]
            let first = start.addingTimeInterval(Double(index))
            var sequence = 0
            func add(_ kind: EntitlementEvent.Kind, at offset: Double = 0) {
                sequence += 1
                events.append(EntitlementEvent(sequence: sequence, timestamp: first.addingTimeInterval(offset + Double(sequence) * 0.001),
                    sessionID: session, deviceID: "generated-device-\(index % 9)", app: app, requestorID: requestor, mvpdID: mvpd,
                    kind: kind))
            }
            add(.apiCall(name: "setRequestor", arguments: ["requestorID": requestor ?? ""]))
            if index % 5 != 2 {
                // A user ID as the SDK sends it (`session_guid`); every fifth session has none.
                let guid = String(format: "%08X-0000-4000-8000-%012X", (index * 2_654_435_761) % 0xFFFF_FFFF, index)
                add(.httpExchange(exchange: HTTPExchange(method: "POST", url: "http://127.0.0.1:8081/adobe-services/shortAuthorize",
                    parameters: ["session_guid": guid], status: 200, responseBody: nil, failure: nil, durationMs: 2)))
            }
            switch index % 6 {
            case 0: add(.callback(callback: .setAuthenticationStatus(status: 1, errorCode: nil)))
            case 1: add(.callback(callback: .tokenRequestFailed(resource: "news", errorCode: "User Not Authorized Error", errorDescription: nil)))
            case 2: add(.callback(callback: .setAuthenticationStatus(status: 0, errorCode: nil)))
            case 3: add(.stateChanged(flow: "authentication", from: "idle", to: "awaitingLogin(Dish)"))
            case 4: add(.error(code: "N130", message: "The service did not answer"))
            default: break
            }
            let extra = index == 0 ? busiest : (index * 7) % 17
            for _ in 0..<max(0, extra - sequence) { add(.apiCall(name: "checkAuthentication", arguments: [:])) }
        }
        try await history.append(events)
        return busiestID
    }
}
