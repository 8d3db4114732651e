import Crypto
import Foundation
import PassProtocol

/// The backend's signed name for a browser device, the `pass_sfp` value (spec §5.2.7): handed out as a header by
/// `POST /indiv/devices` and as a cookie after the sign-in and `session` calls, sent back by web clients so the
/// backend knows the device without a `device_id` parameter.
///
/// Stateless: `<device>.<app>.<mac>`, each part Base64URL, the MAC an HMAC-SHA256 over both with a key derived from
/// the token signing key, so a client cannot name another device by editing it and the backend keeps nothing per
/// browser. `app` is the REST `appId` a registration code scoped its sign-in to (empty for none).
struct ServerFingerprint: Sendable, Equatable {
    /// The device it names.
    var deviceID: String
    /// The app a registration code scoped the device's sessions to, or `nil`.
    var appID: String?

    /// The signed text.
    func serialized(key: SymmetricKey) -> String {
        let device = Self.base64URL(Data(deviceID.utf8))
        let app = Self.base64URL(Data((appID ?? "").utf8))
        return "\(device).\(app).\(Self.base64URL(Self.mac(device, app, key)))"
    }

    /// The device a signed text names, or `nil` when it is not one this backend signed (altered, truncated, another
    /// backend's).
    static func parse(_ text: String, key: SymmetricKey) -> ServerFingerprint? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let mac = decode(parts[2]), let device = decode(parts[0]), let app = decode(parts[1]),
            HMAC<SHA256>.isValidAuthenticationCode(
                mac, authenticating: Data("\(parts[0]).\(parts[1])".utf8), using: key)
        else { return nil }
        let deviceID = String(decoding: device, as: UTF8.self)
        guard !deviceID.isEmpty else { return nil }
        let appID = String(decoding: app, as: UTF8.self)
        return ServerFingerprint(deviceID: deviceID, appID: appID.isEmpty ? nil : appID)
    }

    /// The device ID `POST /indiv/devices` gives a browser fingerprint: 64 hex characters, the same for the same
    /// fingerprint on this backend (a browser that registers again keeps its device and its sessions).
    static func deviceID(forFingerprint fingerprint: String, key: SymmetricKey) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Data("indiv|\(fingerprint)".utf8), using: key)).hexString
    }

    private static func mac(_ device: String, _ app: String, _ key: SymmetricKey) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data("\(device).\(app)".utf8), using: key))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

extension BackendService {
    /// The key `pass_sfp` values are signed with (derived from the token signing key, like the SAML assertion key).
    var serverFingerprintKey: SymmetricKey {
        SymmetricKey(data: SHA256.hash(data: signingKey.rawRepresentation + Data("pass_sfp".utf8)))
    }
}
