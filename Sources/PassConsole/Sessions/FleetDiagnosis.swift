import AccessEnabler
import Foundation
import PassHistory
import PassProtocol

/// Failures that hit every user of an app at once (field problems #5, #6, #37: a revoked registration, the wrong
/// environment, a service that cannot be reached): not a user problem, so the console says so once, in a banner
/// across every page, instead of in each user's health card. Pure: events in, alerts out.
enum FleetDiagnosis {
    /// One app's sessions failing setRequestor the same way on several devices.
    struct Alert: Encodable, Sendable, Equatable {
        /// `wrong_environment`, `service_unreachable`, `registration_refused`, `service_failing`, `sdk_too_old`.
        var id: String
        var title: String
        var text: String
        var bundleID: String
        var requestorID: String?
        /// The advanced status code the SDK reported (`CFG400` …).
        var code: String
        var sessions: Int
        var devices: Int
        var since: Date
        var last: Date
        /// The side that refuses every start (``Refusal/Side``), when the code names one.
        var side: Refusal.Side? = nil
        /// The rule, as a short name (`requestor unknown`).
        var rule: String? = nil
    }

    /// How far back the console looks.
    static let window: TimeInterval = 3600
    /// Devices that must fail alike before it is the app's problem rather than one user's.
    static let minimumDevices = 2

    /// One session's setRequestor outcome, as its events tell it.
    struct Outcome {
        var session: UUID
        var deviceID: String
        var bundleID: String
        var requestorID: String?
        var at: Date
        var succeeded: Bool
        /// The error-level status code reported before the failure.
        var code: String?
        /// The host the configuration was asked from.
        var host: String?
    }

    /// The setRequestor outcomes in `events` (callbacks and configuration exchanges of any sessions).
    static func outcomes(_ events: [EntitlementEvent]) -> [Outcome] {
        var codes: [UUID: String] = [:]
        var hosts: [UUID: String] = [:]
        var outcomes: [Outcome] = []
        for event in events.sorted(by: { $0.timestamp < $1.timestamp }) {
            switch event.kind {
            case .httpExchange(let exchange) where exchange.url.contains("/config/"):
                hosts[event.sessionID] = URLComponents(string: exchange.url).flatMap { c in c.host.map { h in c.port.map { "\(h):\($0)" } ?? h } }
            case .callback(.status(let dictionary)):
                if let id = dictionary["errorId"] ?? dictionary["id"], dictionary["level"] == "error" { codes[event.sessionID] = id }
            case .callback(.setRequestorComplete(let status)):
                outcomes.append(Outcome(session: event.sessionID, deviceID: event.deviceID, bundleID: event.app.bundleID,
                    requestorID: event.requestorID, at: event.timestamp, succeeded: status == 1,
                    code: status == 1 ? nil : codes[event.sessionID], host: hosts[event.sessionID]))
                codes[event.sessionID] = nil
            default: break
            }
        }
        return outcomes
    }

    /// The alerts for `events`: per app and code, failures on at least ``minimumDevices`` devices with no success of
    /// that app since the first of them.
    static func alerts(_ events: [EntitlementEvent], consoleBackend: String? = nil) -> [Alert] {
        let outcomes = outcomes(events)
        var alerts: [Alert] = []
        let failures = Dictionary(grouping: outcomes.filter { !$0.succeeded }) { "\($0.bundleID)\u{0}\($0.code ?? "")" }
        for (_, group) in failures {
            guard let first = group.min(by: { $0.at < $1.at }), let last = group.max(by: { $0.at < $1.at }) else { continue }
            let devices = Set(group.map(\.deviceID)).count
            let recovered = outcomes.contains { $0.succeeded && $0.bundleID == first.bundleID && $0.at > first.at }
            guard devices >= minimumDevices, !recovered else { continue }
            alerts.append(alert(for: group, first: first, last: last, devices: devices, consoleBackend: consoleBackend))
        }
        return alerts.sorted { $0.last > $1.last }
    }

    static func alert(for group: [Outcome], first: Outcome, last: Outcome, devices: Int, consoleBackend: String?) -> Alert {
        let sessions = Set(group.map(\.session)).count
        let app = first.bundleID
        let requestor = first.requestorID ?? "its Programmer"
        let host = group.lazy.compactMap(\.host).first
        var called = ""
        if let host {
            called = " It asked \(host)"
            if let consoleBackend, !consoleBackend.contains(host) { called += " (this console's backend is \(consoleBackend))" }
            called += "."
        }
        let scope = "\(sessions) sessions on \(devices) devices since \(HealthCard.clock(first.at))"
        let code = first.code ?? "no code"
        let (id, title, text): (String, String, String) = switch first.code {
        case "CFG400":
            ("wrong_environment", "\(app): the service does not know \(requestor)",
             "Every start of \(app) fails (\(scope)): the service answered that the requestor ID \(requestor) is unknown."
                + called + " The app is set up for another environment (staging vs production) or with a wrong requestor ID. "
                + "Not a user problem: fix the app's configuration.")
        case "CFG404":
            ("service_unreachable", "\(app) cannot reach the entitlement service",
             "Every start of \(app) fails (\(scope)): the service could not be reached." + called
                + " A service outage, or the app points to a wrong host. Not a user problem.")
        case "R400", "R401":
            ("registration_refused", "\(app) is not registered with the service",
             "Every start of \(app) fails (\(scope)) with \(code): \(ErrorExplanation.words(for: code)) "
                + "Check the app's software statement and custom scheme. Not a user problem.")
        case "CFG410":
            ("sdk_too_old", "\(app) uses an SDK the service no longer accepts",
             "Every start of \(app) fails (\(scope)) with CFG410: the app must ship a newer SDK. Not a user problem.")
        default:
            ("service_failing", "\(app) fails to start on every device",
             "Every start of \(app) fails the same way (\(scope), \(code)): \(ErrorExplanation.words(for: code))" + called
                + " Not a user problem.")
        }
        let (side, rule): (Refusal.Side?, String?) = switch first.code {
        case "CFG400": (.backend, "requestor unknown")
        case "CFG404": (.network, "service unreachable")
        case "R400", "R401": (.backend, "registration refused")
        case "CFG410": (.backend, "SDK version retired")
        default: (nil, nil)
        }
        return Alert(id: id, title: title, text: text, bundleID: app, requestorID: first.requestorID, code: code,
            sessions: sessions, devices: devices, since: first.at, last: last.at, side: side, rule: rule)
    }
}

extension EventHistory {
    /// The events ``FleetDiagnosis`` reads: the last hour's setRequestor callbacks, status callbacks and
    /// configuration exchanges (the newest 5,000 of each).
    func fleetSignals(now: Date) async throws -> [EntitlementEvent] {
        var signals: [EntitlementEvent] = []
        for (kind, text) in [(EventKind.callback, "setRequestorComplete"), (.callback, "callback status("), (.httpExchange, "/config/")] {
            var filter = HistoryFilter(kinds: [kind], text: text, from: now.addingTimeInterval(-FleetDiagnosis.window))
            filter.until = now.addingTimeInterval(60)
            signals += try await latestPage(matching: filter, limit: 5000).events.map(\.event)
        }
        return signals
    }
}
