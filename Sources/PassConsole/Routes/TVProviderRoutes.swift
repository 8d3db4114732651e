import DecodingWords
import AccessEnabler
import Foundation
import MicroHTTP
import PassSimulator

/// A demo device's Apple TV Provider (Settings → TV Provider): what its user does in the Apple dialog that apps open
/// for a Programmer with an Apple SSO MVPD (``TVProviderSetting``, the device folder's `tv-provider.json`).
extension Console {
    /// What `GET`/`PUT /api/devices/{name}/tv-provider` answer; never the password.
    struct TVProviderView: Encodable, Sendable {
        var device: String
        /// `pick:Spectrum`, `other`, `cancel` or `none`.
        var choice: String
        /// With `pick:` and credentials: the device's TV provider account signs in (no login page on iOS).
        var signsIn: Bool
        var username: String?

        init(device: String, setting: TVProviderSetting) {
            self.device = device
            choice = setting.argument
            if case .pick(_, let username?, _?) = setting {
                signsIn = true
                self.username = username
            } else {
                signsIn = false
            }
        }
    }

    static func addTVProviderRoutes(to router: inout Router, _ box: ConsoleBox) {
        router.get("/api/devices/{name}/tv-provider") { request in
            let device = try box.get().device(named: request.pathParameters["name"] ?? "")
            return .api(TVProviderView(device: device.name, setting: try readTVProvider(device)))
        }
        router.put("/api/devices/{name}/tv-provider") { request in
            let console = try box.get()
            let device = try console.device(named: request.pathParameters["name"] ?? "")
            struct Body: Decodable {
                var choice: String
                var username: String?
                var password: String?
            }
            let body = try request.decodeAPI(Body.self)
            var setting: TVProviderSetting
            do throws(TVProviderSetting.ParseError) {
                setting = try TVProviderSetting(argument: body.choice, username: body.username, password: body.password)
            } catch {
                throw HTTPError(.badRequest, code: "invalid_argument", message: error.description)
            }
            if case .pick(let mvpd, let username, let password) = setting {
                let known = console.catalog.allowedMvpds.values.contains { $0.contains(mvpd) }
                guard known else {
                    throw HTTPError(.badRequest, code: "unknown_mvpd", message: "No Programmer integrates an MVPD '\(mvpd)'.")
                }
                guard (username == nil) == (password == nil) else {
                    throw HTTPError(.badRequest, code: "invalid_argument", message: "Give username and password together.")
                }
                // Without credentials the device signs in as the MVPD's first demo subscriber, as a person would.
                if username == nil, let subscriber = console.catalog.demoSubscribers.first(where: { $0.mvpd == mvpd }) {
                    setting = .pick(mvpdID: mvpd, username: subscriber.username, password: subscriber.password)
                }
            }
            do { try setting.save(in: device.folder) } catch {
                throw HTTPError(.internalServerError, code: "storage_failed", message: "The device's TV provider could not be saved.",
                    detail: "\(error)")
            }
            let view = TVProviderView(device: device.name, setting: setting)
            try await console.history.audit("tv-provider",
                detail: "Set the Apple TV Provider of \(device.name) to \(view.choice)" + (view.username.map { " (signs in as \($0))" } ?? ""),
                by: console.actor(request))
            return .api(view)
        }
    }

    /// The device named `name`.
    func device(named name: String) throws(HTTPError) -> ConsoleDevice {
        guard let device = configuration.devices.first(where: { $0.name == name }) else {
            throw HTTPError(.notFound, code: "unknown_device", message: "No device is named '\(name)'.")
        }
        return device
    }

    private static func readTVProvider(_ device: ConsoleDevice) throws(HTTPError) -> TVProviderSetting {
        do { return try TVProviderSetting.load(from: device.folder) } catch {
            throw HTTPError(.internalServerError, code: "storage_failed", message: "The device's TV provider setting is unreadable.",
                detail: DecodingError.words(error))
        }
    }
}
