import Foundation
import MicroHTTP

extension Console {
    /// `GET /healthz` (no token: see ``HealthCheck``) and `GET /metrics` (Prometheus text; behind the API's access
    /// rule, see ``AccessGuard``).
    static func addOperationsRoutes(to router: inout Router, _ box: ConsoleBox) {
        router.get("/healthz") { _ in
            let report = await HealthCheck.run(try box.get())
            var response = Response.api(report, status: report.failing.isEmpty ? .ok : .serviceUnavailable)
            response.headers.append(("Cache-Control", "no-store"))
            return response
        }
        router.get("/metrics") { _ in
            let console = try box.get()
            await console.metrics.refresh(from: console)
            return console.metrics.exposition()
        }
    }
}
