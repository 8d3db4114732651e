import AccessEnabler
import ArgumentParser
import Foundation
import PassBackend
import PassConsole
import PassStorage

/// `Config/console.json`: the demo devices and apps `serve` runs inside the console.
struct ConsoleSetup: Decodable {
    struct Device: Decodable {
        var name: String
        var folder: String
    }

    struct App: Decodable {
        var id: String
        var name: String
        var bundleID: String
        var teamID: String
        var platform: Platform
        var requestorID: String
        var device: String
        var start: Bool?
    }

    var devices: [Device]
    var apps: [App]

    static func load(path: String) throws -> ConsoleSetup {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("Cannot read the console configuration \(path).")
        }
        do { return try JSONDecoder().decode(ConsoleSetup.self, from: data) } catch {
            throw ValidationError("\(path) is not a console configuration: \(error)")
        }
    }

    /// The console's devices under `root`.
    func consoleDevices(root: URL) throws -> [ConsoleDevice] {
        guard !devices.isEmpty else { throw ValidationError("The console configuration names no device.") }
        return devices.map { device in
            let folder = device.folder == "." ? root : root.appendingPathComponent(device.folder, isDirectory: true)
            return ConsoleDevice(name: device.name, folder: DeviceFolder(root: folder))
        }
    }

    /// The app specs, with resources, MVPDs and (tvOS) credentials from the backend configuration.
    func specs(backend: BackendConfiguration) throws -> [(spec: ConsoleAppSpec, device: String, start: Bool)] {
        try apps.map { app in
            guard let programmer = backend.programmers.first(where: { $0.id == app.requestorID }) else {
                throw ValidationError("App \(app.id): no Programmer \(app.requestorID) in the backend configuration.")
            }
            guard devices.contains(where: { $0.name == app.device }) else {
                throw ValidationError("App \(app.id): no device named \(app.device).")
            }
            let registered = backend.apps.first { $0.requestorID == app.requestorID }
            if app.platform == .tvOS, registered == nil {
                throw ValidationError("App \(app.id) runs on tvOS but no app is registered for \(app.requestorID) (apps[] in the backend configuration).")
            }
            let mvpds = programmer.mvpds.compactMap { id in
                backend.mvpds.first { $0.id == id }.map { ConsoleAppSpec.MVPDChoice(id: $0.id, displayName: $0.displayName, signIn: $0.loginPage.summary) }
            }
            let spec = ConsoleAppSpec(
                id: app.id, name: app.name, app: AppIdentity(bundleID: app.bundleID, teamID: app.teamID, platform: app.platform),
                requestorID: app.requestorID, publicKey: app.platform == .tvOS ? registered?.publicKey : nil,
                secret: app.platform == .tvOS ? registered?.secret : nil, resources: backend.resources.map(\.id), mvpds: mvpds)
            return (spec, app.device, app.start ?? false)
        }
    }
}
