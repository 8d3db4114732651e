import AccessEnabler
import Foundation
import PassHistory
import PassProtocol

/// What a team migrating to REST API v2 before the end-of-2026 switch-off needs to see, per app: which calls of the
/// legacy protocols (the SDK's `adobe-services`, REST API v1, the web variant) its sessions of the chosen window still
/// made, the v2 call that replaces each (``LegacyCall``), and how many sessions made each; and how many sessions of
/// the app already speak v2.
struct MigrationView: Encodable, Sendable {
    struct Call: Encodable, Sendable {
        var protocolName: String
        var call: String
        var replacement: String
        var sessions: Int
    }

    struct App: Encodable, Sendable {
        /// The app's key: its bundle ID, or for clients the console knows only from the wire, `<Programmer> · <client>`.
        var app: String
        var requestorIDs: [String]
        var clients: [String]
        var sessions: Int
        /// Sessions that made at least one legacy call.
        var legacySessions: Int
        /// Sessions that made at least one REST API v2 call.
        var v2Sessions: Int
        var calls: [Call]
        /// In words, for the page.
        var summary: String
    }

    var from: Date
    var until: Date
    var hours: Int
    /// Sessions seen in the window, and how many of them were read (the newest, up to ``MigrationView/scanLimit``).
    var sessionsInWindow: Int
    var scannedSessions: Int
    var apps: [App]

    /// How many sessions one view reads at most (the newest first); the answer says when there were more.
    static let scanLimit = 2_000
    /// The window's bounds in hours (`?hours=`).
    static let hoursRange = 1...(24 * 366)

    static func make(history: any EventHistory, hours: Int, now: Date) async throws -> MigrationView {
        let from = now.addingTimeInterval(-Double(hours) * 3600)
        let recent = try await history.sessions().filter { $0.lastSeen >= from }.sorted { $0.lastSeen > $1.lastSeen }
        var groups: [String: Group] = [:]
        for session in recent.prefix(scanLimit) {
            let page = try await history.page(matching: HistoryFilter(sessionID: session.id, kinds: [.httpExchange], from: from), limit: 1000)
            var calls: Set<LegacyCall> = []
            var speaksV2 = false
            for stored in page.events {
                guard case .httpExchange(let exchange) = stored.event.kind else { continue }
                let path = Self.path(exchange.url)
                if path.hasPathPrefix("/api/v2/") { speaksV2 = true }
                if let call = LegacyCall.of(method: exchange.method, path: path) { calls.insert(call) }
            }
            let key = Self.appKey(session)
            var group = groups[key] ?? Group()
            if let requestor = session.requestorID { group.requestors.insert(requestor) }
            group.clients.insert(session.client.label)
            group.sessions += 1
            if !calls.isEmpty { group.legacy += 1 }
            if speaksV2 { group.v2 += 1 }
            for call in calls { group.calls[call, default: 0] += 1 }
            groups[key] = group
        }
        let apps = groups.map { app($0.key, $0.value) }.sorted { a, b in
            a.legacySessions != b.legacySessions ? a.legacySessions > b.legacySessions : a.app < b.app
        }
        return MigrationView(from: from, until: now, hours: hours, sessionsInWindow: recent.count,
            scannedSessions: min(recent.count, scanLimit), apps: apps)
    }

    struct Group {
        var requestors: Set<String> = []
        var clients: Set<String> = []
        var sessions = 0
        var legacy = 0
        var v2 = 0
        var calls: [LegacyCall: Int] = [:]
    }

    static func app(_ key: String, _ group: Group) -> App {
        let ordered: [(key: LegacyCall, value: Int)] = group.calls.sorted { a, b in a.value != b.value ? a.value > b.value : a.key < b.key }
        let calls = ordered.map { Call(protocolName: $0.key.protocolName, call: $0.key.name, replacement: $0.key.replacement, sessions: $0.value) }
        let summary: String
        if group.legacy == 0 {
            summary = group.v2 > 0 ? "Migrated: its \(group.sessions) session(s) made no legacy call." : "No protocol calls recorded in the window."
        } else {
            summary = "\(group.legacy) of \(group.sessions) session(s) still made legacy calls (\(calls.count) kind(s)); "
                + "\(group.v2) spoke REST API v2. The legacy protocols are switched off at the end of 2026."
        }
        return App(app: key, requestorIDs: group.requestors.sorted(), clients: group.clients.sorted(), sessions: group.sessions,
            legacySessions: group.legacy, v2Sessions: group.v2, calls: calls, summary: summary)
    }

    /// An app's key: its bundle ID for an app the console knows by it (an SDK app, a reporter), else the Programmer and
    /// the kind of client the service saw (the backend's and a proxy's sessions carry no bundle ID of their own).
    static func appKey(_ session: HistorySession) -> String {
        guard ClientKind.known.contains(where: { $0.rawValue == session.bundleID }) || session.bundleID.isEmpty else { return session.bundleID }
        return "\(session.requestorID ?? "no Programmer") · \(session.client.label)"
    }

    /// The path of a recorded URL (absolute or not), without its query.
    static func path(_ url: String) -> String {
        var text = url
        if let scheme = text.range(of: "://"), let slash = text[scheme.upperBound...].firstIndex(of: "/") { text = String(text[slash...]) }
        return text.split(separator: "?", maxSplits: 1).first.map(String.init) ?? text
    }
}
