import Crypto
import Foundation

/// The platform sign-in's profile (Apple SSO, `PlatformSSORoutes`): the login it answers and the subscriber, signed so
/// it cannot be forged. The MVPD web pages answer with a real ``SAMLResponse`` instead.
enum SAMLAssertion {
    static func make(loginID: String, username: String, key: SymmetricKey) -> String {
        let payload = "\(loginID)|\(username)"
        let mac = Data(HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key)).base64EncodedString()
        return Data("\(payload)|\(mac)".utf8).base64EncodedString()
    }

    static func verify(_ assertion: String, key: SymmetricKey) -> (String, String)? {
        guard let data = Data(base64Encoded: assertion) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 3, let mac = Data(base64Encoded: String(parts[2])) else { return nil }
        let payload = Data("\(parts[0])|\(parts[1])".utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload, using: key) else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}
