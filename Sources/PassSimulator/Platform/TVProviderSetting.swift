import AccessEnabler
import Foundation
import PassStorage

/// A simulated device's TV Provider (Settings → TV Provider) and what its user does in the Apple dialog, stored once
/// per device as `DIR/tv-provider.json`; no file: not signed in to any TV provider.
///
/// Every app on the device sees the same setting (it is the device's, not the app's), read each time an app opens
/// the Apple dialog, so changing it changes what the next `getAuthentication` does. `passconsole flow --apple-sso`
/// and the console's Devices page write it.
///
/// ```json
/// {"choice": "pick", "mvpd": "Spectrum", "username": "bob", "password": "bob123"}
/// ```
public enum TVProviderSetting: Sendable, Equatable {
    /// The user picks this MVPD in the Apple dialog. On iOS, with credentials, the device's TV provider account signs
    /// in with them and the app gets the sign-in without a login page (and keeps getting it until the user signs out
    /// in Settings); without credentials the SDK opens the MVPD's login page. On tvOS the SDK shows a registration
    /// code for it (cookbook flow E).
    case pick(mvpdID: String, username: String? = nil, password: String? = nil)
    /// The user picks "Other TV Provider": the SDK's own picker follows (`N003`).
    case other
    /// The user closes the dialog: authentication is cancelled (`N005`).
    case cancel
    /// The device is not signed in to any TV provider and the user picks none: the SDK's own picker follows.
    case none
    /// The user has denied this app access to the TV provider: `VSA403`, the SDK's own picker (field problem #20).
    case denied

    /// Why a setting could not be read.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Parses `pick:MVPD`, `other`, `cancel`, `none` or `denied` (the `--apple-sso` argument), case-insensitive keywords.
    /// - Throws: ``ParseError`` naming the accepted forms.
    public init(argument: String, username: String? = nil, password: String? = nil) throws(ParseError) {
        let text = argument.trimmingCharacters(in: .whitespaces)
        switch text.lowercased() {
        case "other": self = .other
        case "cancel": self = .cancel
        case "none": self = .none
        case "denied": self = .denied
        default:
            guard text.lowercased().hasPrefix("pick:"), text.count > 5 else {
                throw ParseError(description: "'\(argument)' is not an Apple SSO choice: use pick:MVPD, other, cancel, none or denied.")
            }
            let mvpd = String(text.dropFirst(5))
            guard mvpd.count <= 128, mvpd.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
                throw ParseError(description: "'\(mvpd)' is not an MVPD ID (letters, digits, - _ . up to 128).")
            }
            self = .pick(mvpdID: mvpd, username: username, password: password)
        }
    }

    /// The `--apple-sso` form (`pick:Spectrum`), without credentials.
    public var argument: String {
        switch self {
        case .pick(let mvpd, _, _): "pick:\(mvpd)"
        case .other: "other"
        case .cancel: "cancel"
        case .none: "none"
        case .denied: "denied"
        }
    }

    /// The device's setting file, `DIR/tv-provider.json`.
    public static func file(in folder: DeviceFolder) -> StorageFile {
        StorageFile(url: folder.root.appendingPathComponent("tv-provider.json", isDirectory: false))
    }

    /// The device's setting; ``none`` when it has no file.
    /// - Throws: ``ParseError`` for an unreadable file, `StorageError` when it cannot be read.
    public static func load(from folder: DeviceFolder) throws -> TVProviderSetting {
        guard let data = try file(in: folder).read() else { return .none }
        do {
            return try JSONDecoder().decode(TVProviderSetting.self, from: data)
        } catch {
            throw ParseError(description: "\(file(in: folder).url.path) is not a TV provider setting: \(error)")
        }
    }

    /// Stores this setting as the device's (``none`` removes the file).
    public func save(in folder: DeviceFolder) throws {
        let file = Self.file(in: folder)
        if self == .none {
            try file.remove()
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try file.write(try encoder.encode(self))
    }
}

extension TVProviderSetting: Codable {
    private enum CodingKeys: String, CodingKey { case choice, mvpd, username, password }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let choice = try c.decode(String.self, forKey: .choice)
        if choice == "pick" {
            let mvpd = try c.decode(String.self, forKey: .mvpd)
            let username = try c.decodeIfPresent(String.self, forKey: .username)
            let password = try c.decodeIfPresent(String.self, forKey: .password)
            do throws(ParseError) {
                self = try TVProviderSetting(argument: "pick:" + mvpd, username: username, password: password)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .mvpd, in: c, debugDescription: error.description)
            }
            return
        }
        do throws(ParseError) {
            self = try TVProviderSetting(argument: choice)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .choice, in: c, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .pick(let mvpd, let username, let password):
            try c.encode("pick", forKey: .choice)
            try c.encode(mvpd, forKey: .mvpd)
            try c.encodeIfPresent(username, forKey: .username)
            try c.encodeIfPresent(password, forKey: .password)
        case .other, .cancel, .none, .denied:
            try c.encode(argument, forKey: .choice)
        }
    }
}
