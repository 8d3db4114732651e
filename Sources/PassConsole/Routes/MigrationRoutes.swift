import Foundation
import MicroHTTP

extension Console {
    /// `GET /api/migration?hours=168`: per app, the legacy calls its sessions of the window still made and their REST
    /// API v2 replacements (``MigrationView``).
    static func addMigrationRoutes(to router: inout Router, _ box: ConsoleBox) {
        router.get("/api/migration") { request in
            let console = try box.get()
            let hours = try request.query("hours", as: Int.self, in: MigrationView.hoursRange, default: 168)
            return .api(try await MigrationView.make(history: console.history, hours: hours, now: console.configuration.now()))
        }
    }
}
