import Foundation
import MicroHTTP

extension Console {
    /// Every API route; `/openapi.json` describes them (served from `Public/`).
    static func addRoutes(to router: inout Router, console: ConsoleBox) {
        addOverviewRoutes(to: &router, console)
        addEventRoutes(to: &router, console)
        addSessionRoutes(to: &router, console)
        addReplayRoute(to: &router, console)
        addStorageRoutes(to: &router, console)
        addAppRoutes(to: &router, console)
        addDeviceRoutes(to: &router, console)
        addTVProviderRoutes(to: &router, console)
        addOperationsRoutes(to: &router, console)
        addOperatorRoutes(to: &router, console)
        addProxyRoutes(to: &router, console)
        addMigrationRoutes(to: &router, console)
    }
}
