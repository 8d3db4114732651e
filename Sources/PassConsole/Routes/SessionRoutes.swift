import AccessEnabler
import Foundation
import MicroHTTP
import PassHistory
import PassProtocol

extension Console {
    struct SessionDetail: Encodable {
        var session: HistorySession
        var health: HealthCard
        /// The delegate contract, rule by rule (``CallbackContract``).
        var contract: [CallbackContract.Rule]
        var flow: FlowProgress
    }

    static func addSessionRoutes(to router: inout Router, _ box: ConsoleBox) {
        router.get("/api/sessions") { request in
            let console = try box.get()
            return .api(["sessions": try console.history.sessions(matching: request.query("q") ?? "")])
        }
        router.get("/api/sessions/{id}") { request in
            let console = try box.get()
            guard let id = UUID(uuidString: request.pathParameters["id"] ?? ""), let session = try console.history.session(id) else {
                throw HTTPError(.notFound, code: "unknown_session", message: "No session has the ID '\(request.pathParameters["id"] ?? "")'.")
            }
            let events = try console.history.page(matching: HistoryFilter(sessionID: id), limit: 20_000).events.map(\.event)
            let now = console.configuration.now()
            let storage = try? StorageReport.build(
                devices: console.configuration.devices, apps: console.knownApps(), allowedMvpds: console.catalog.allowedMvpds, now: now)
            // The backend's side of each registration code the TV showed (who tried to use it, and how).
            var regcodes: [String: RegcodeLife] = [:]
            if let admin = BackendAdmin(baseURL: console.configuration.backendURL) {
                for code in SecondScreenCode.codes(in: events) { regcodes[code] = await admin.regcodeLife(code) }
            }
            return .api(SessionDetail(
                session: session,
                health: HealthCard.make(session: session, events: events, storage: storage, now: now, regcodes: regcodes),
                contract: CallbackContract.check(events),
                flow: FlowProgress.replay(events)))
        }
    }
}
