import AccessEnabler
import Foundation
import MicroHTTP
import PassHistory

extension Console {
    struct Overview: Encodable {
        struct Counts: Encodable {
            /// `nil` when the history cannot be read (``history`` says why).
            var events: Int?
            var sessions: Int?
            var ingestDropped: Int
            var ingestPending: Int
        }
        var version: String
        var startedAt: Date
        var backendURL: String?
        var deviceFolder: String
        var historyFile: String?
        var csrfToken: String
        var tokenRequired: Bool
        var counts: Counts
        /// Failures hitting an app on every device (``FleetDiagnosis``): shown as a banner on every page.
        var fleet: [FleetDiagnosis.Alert]
        /// The history's health: `state` is `ok`, or why it cannot be read or written (shown as a banner).
        var history: HistoryHealth.Report
        /// Set when the console shows a support bundle (read-only).
        var offline: Offline?
        /// The largest storage file or ingest batch the console takes, in words (`16 MB`).
        var uploadLimit: String
    }

    struct Offline: Encodable {
        var file: String
        var createdAt: Date
        var sessionID: UUID
        var bundleID: String
    }

    static func addOverviewRoutes(to router: inout Router, _ box: ConsoleBox) {
        router.get("/api/overview") { _ in
            let console = try box.get()
            // A damaged (or unreachable) history still gets its overview (and banner): what cannot be read is left out.
            let events: Int?
            do {
                events = try await console.history.eventCount
                console.health.readSucceeded()
            } catch {
                _ = console.health.failed(error, during: "GET /api/overview")
                events = nil
            }
            let counts = Overview.Counts(
                events: events, sessions: events == nil ? nil : try? await console.history.sessionCount,
                ingestDropped: await console.droppedCount(), ingestPending: await console.batcher.pendingCount)
            let fleet = (try? await console.fleetAlerts()) ?? []
            return .api(Overview(
                version: AccessEnabler.version, startedAt: console.startedAt, backendURL: console.configuration.backendURL,
                deviceFolder: console.configuration.device.root.path(percentEncoded: false),
                historyFile: console.sqlite.map(\.path) ?? console.history.location, csrfToken: console.csrfToken,
                tokenRequired: console.configuration.accessToken != nil, counts: counts,
                fleet: fleet, history: await console.historyHealth(),
                offline: console.configuration.bundle.map {
                    Offline(file: ($0.file as NSString).lastPathComponent, createdAt: $0.createdAt, sessionID: $0.sessionID, bundleID: $0.bundleID)
                },
                uploadLimit: ByteCount.text(console.configuration.maxBodySize)))
        }
        router.get("/api/audit") { request in
            let console = try box.get()
            let limit = try request.query("limit", as: Int.self, in: Console.auditLimit, default: 500)
            return .api(["entries": try await console.history.auditEntries(limit: limit)])
        }
    }
}
