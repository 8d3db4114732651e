import AccessEnabler
import Foundation
import MicroHTTP
import PassSimulator

extension Console {
    static func addDeviceRoutes(to router: inout Router, _ box: ConsoleBox) {
        router.get("/api/devices") { _ in
            let console = try box.get()
            return .api(DeviceReport.build(devices: console.configuration.devices, apps: await console.knownApps(),
                requestors: console.catalog.requestors, now: console.configuration.now()))
        }
        router.post("/api/devices/whatif") { request in
            let console = try box.get()
            let body = try request.decodeAPI(WhatIf.Body.self)
            let answer = try WhatIf.answer(
                body, devices: console.configuration.devices, apps: await console.knownApps())
            return .api(answer)
        }
    }
}
