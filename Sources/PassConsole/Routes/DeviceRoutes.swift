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
            struct Body: Decodable {
                var bundleID: String
                var teamID: String
                var platform: String?
            }
            let body = try request.decodeAPI(Body.self)
            guard !body.bundleID.isEmpty, !body.teamID.isEmpty else {
                throw HTTPError(.badRequest, code: "missing_argument", message: "Give a bundle ID and a team ID.")
            }
            guard let platform = Platform(rawValue: (body.platform ?? "ios").lowercased()) else {
                throw HTTPError(.badRequest, code: "unknown_platform", message: "platform must be ios or tvos.")
            }
            let candidate = AppIdentity(bundleID: body.bundleID, teamID: body.teamID, platform: platform)
            let device = console.configuration.devices.first { device in
                guard let data = try? device.folder.deviceProfile.read(),
                    let profile = try? JSONDecoder().decode(DeviceProfile.self, from: data) else { return false }
                return profile.platform == platform
            }
            let profile = device.flatMap { try? JSONDecoder().decode(DeviceProfile.self, from: (try? $0.folder.deviceProfile.read()) ?? Data()) }
            let deviceID = profile.map { DeviceIdentity.deviceID(profile: $0, app: candidate) }
            let row = DeviceReport.describe(KnownApp(identity: candidate, deviceID: deviceID ?? "(no \(platform.rawValue) device profile yet)", device: device?.name), profile: profile)
            let relations = await console.knownApps().filter { $0.identity.bundleID != candidate.bundleID }
                .map { DeviceReport.relation(candidate, $0.identity, devices: (device?.name, $0.device)) }
            struct Answer: Encodable {
                var deviceID: String
                var algorithm: String
                var relations: [DeviceReport.Relation]
            }
            return .api(Answer(deviceID: row.deviceID, algorithm: row.algorithm, relations: relations))
        }
    }
}
