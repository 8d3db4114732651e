import DecodingWords
import AccessEnabler
import Foundation
import MicroHTTP
import PassSimulator
import PassStorage

/// One token storage file of a device, named as the console names it: `<device>/team:<teamID>` for a team's shared
/// pasteboard (iOS), `<device>/app:<bundleID>` for an app's private storage (tvOS).
struct StorageDomain: Hashable, Sendable {
    enum Kind: String, Codable, Sendable { case team, app }

    /// The device's name (``ConsoleDevice/name``).
    var device: String
    var kind: Kind
    var owner: String
    var file: StorageFile

    var id: String { "\(device)/\(kind.rawValue):\(owner)" }

    /// The SDK's own name for it in events (`team TEAM1234`, `app com.example.tv`).
    var eventName: String { "\(kind.rawValue) \(owner)" }

    var store: TokenStore { TokenStore(file: file, domain: eventName) }

    /// Why this domain's file cannot be read, in words that name the file and what is wrong in it (`the file
    /// phone/TEAM1234.json cannot be read: the token storage is damaged: requestors.REF30 should be an object, not
    /// text`), never Swift's dump of a decoding error.
    func unreadable(_ error: any Error) -> String {
        let reason = (error as? TokenStore.Unreadable)?.reason ?? DecodingError.words(error)
        return "The file \(file.url.lastPathComponent) of \(id) cannot be read: \(reason)"
    }

    /// A label for people.
    var label: String {
        switch kind {
        case .team where owner == TokenStorageLocation.everyAppOwner:
            "Every app on \(device) — the one pasteboard of iOS 6 and earlier, shared by all iOS apps"
        case .team: "Team \(owner) on \(device) — shared by the team's iOS apps on this device"
        case .app: "App \(owner) on \(device) — private to this app (tvOS)"
        }
    }

    /// The domain with this console ID among `devices`.
    /// - Throws: `400 unknown_domain` when `id` is not `<device>/team:…` or `<device>/app:…` with plain names;
    ///   `404 unknown_domain` when it is, but no device of the console has that name.
    init(id: String, devices: [ConsoleDevice]) throws(HTTPError) {
        let usage = "use <device>/team:<teamID> or <device>/app:<bundleID>, as GET /api/storage lists them"
        let slash = id.split(separator: "/", maxSplits: 1).map(String.init)
        let parts = slash.count == 2 ? slash[1].split(separator: ":", maxSplits: 1).map(String.init) : []
        guard parts.count == 2, let kind = Kind(rawValue: parts[0]), !parts[1].isEmpty else {
            throw HTTPError(.badRequest, code: "unknown_domain", message: "'\(id)' does not name a storage domain; \(usage).")
        }
        guard let device = devices.first(where: { $0.name == slash[0] }) else {
            throw HTTPError(.notFound, code: "unknown_domain",
                message: "No device is named '\(slash[0])'; the devices are: \(devices.map(\.name).joined(separator: ", ")).")
        }
        do {
            let file = switch kind {
            case .team: try device.folder.teamShared(teamID: parts[1])
            case .app: try device.folder.appPrivate(bundleID: parts[1])
            }
            self.init(device: device.name, kind: kind, owner: parts[1], file: file)
        } catch {
            throw HTTPError(.badRequest, code: "unknown_domain", message: "'\(id)' is not a valid storage domain.",
                detail: String(describing: error))
        }
    }

    init(device: String, kind: Kind, owner: String, file: StorageFile) {
        self.device = device
        self.kind = kind
        self.owner = owner
        self.file = file
    }

    /// The domain an app's SDK uses on `device`: the team's file on iOS (the device's one pasteboard on iOS 6 and
    /// earlier), the app's own on tvOS.
    static func of(_ app: AppIdentity, on device: ConsoleDevice) throws -> StorageDomain {
        // On a device of iOS 6 or earlier, every iOS app uses the one pasteboard (TokenStorageLocation)
        if let profile = device.profile, TokenStorageLocation.scope(profile: profile, app: app) == .device {
            let owner = TokenStorageLocation.everyAppOwner
            return StorageDomain(device: device.name, kind: .team, owner: owner, file: try device.folder.teamShared(teamID: owner))
        }
        return switch app.platform {
        case .iOS: StorageDomain(device: device.name, kind: .team, owner: app.teamID, file: try device.folder.teamShared(teamID: app.teamID))
        case .tvOS: StorageDomain(device: device.name, kind: .app, owner: app.bundleID, file: try device.folder.appPrivate(bundleID: app.bundleID))
        }
    }

    /// Every token storage file present on `devices`.
    static func all(in devices: [ConsoleDevice]) throws -> [StorageDomain] {
        try devices.flatMap { device in
            try device.folder.files().compactMap { entry -> StorageDomain? in
                guard entry.name == "storage.json", let owner = entry.id else { return nil }
                switch entry.kind {
                case .team: return StorageDomain(device: device.name, kind: .team, owner: owner, file: entry.file)
                case .app: return StorageDomain(device: device.name, kind: .app, owner: owner, file: entry.file)
                case .profile, .legacy: return nil
                }
            }
        }
    }

    /// Whether `app`'s SDK reads and writes this domain.
    func isUsed(by app: KnownApp) -> Bool {
        if let appDevice = app.device, appDevice != device { return false }
        if kind == .team, owner == TokenStorageLocation.everyAppOwner {
            // DIR/shared/all-apps/storage.json: the device folder is three levels up
            let root = file.url.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            guard app.identity.platform == .iOS, let profile = ConsoleDevice(name: device, folder: DeviceFolder(root: root)).profile
            else { return false }
            return TokenStorageLocation.scope(profile: profile, app: app.identity) == .device
        }
        return switch (kind, app.identity.platform) {
        case (.team, .iOS): app.identity.teamID == owner
        case (.app, .tvOS): app.identity.bundleID == owner
        default: false
        }
    }
}

/// An app the console knows of (a demo app, or one seen in the history), with the device ID its SDK uses.
struct KnownApp: Hashable, Sendable, Codable {
    var identity: AppIdentity
    var deviceID: String
    /// The device it runs on, for the console's own apps; `nil` for apps of other processes (any device).
    var device: String?
    /// The Programmer its setRequestor names, when known.
    var requestorID: String? = nil
    /// The AccessEnabler release whose storage rules it follows; `nil` for this SDK's own (``SDKRelease/current``).
    var sdkRelease: SDKRelease? = nil
}

extension ConsoleDevice {
    /// The device's hardware profile (`device.json`), when it has one: its OS version decides where apps keep tokens.
    var profile: DeviceProfile? {
        guard let data = try? folder.deviceProfile.read() else { return nil }
        return try? JSONDecoder().decode(DeviceProfile.self, from: data)
    }
}
