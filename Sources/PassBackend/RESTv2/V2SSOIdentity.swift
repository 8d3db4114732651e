import Foundation
import MicroHTTP
import PassProtocol

/// The single sign-on identity a REST API v2 call carries (docs/rest-api-v2.md §5.7.1–5.7.2): a platform identity
/// (`Adobe-Subject-Token`, or Roku's `X-Roku-Reserved-Roku-Connect-Token`: a JWS or JWE from the platform) or a
/// service token (`AD-Service-Token`: a JWS from the Programmer's own identity service, `iss` and `sub` naming the
/// user). A sign-in made with one is found by every app that sends the same identity: on the same platform (platform
/// identity) or on any device (service token).
struct V2SSOIdentity: Sendable, Equatable {
    enum Method: String, Sendable { case platform, serviceToken }
    var method: Method
    /// What identifies the user: the JWT's `iss` and `sub`, or for an opaque (encrypted) token the token itself.
    var subject: String

    var key: String { "\(method.rawValue)|\(subject)" }
    /// The profile type the vendor gives such a sign-in's profile.
    var profileType: String { method == .platform ? "platformSSO" : "serviceTokenSSO" }

    /// The identity of `request`, or nil when it sends none or an unusable one (an expired JWT, a value that is no
    /// token): single sign-on simply does not happen then, as the vendor documents no error for these headers.
    init?(_ request: Request, now: Date) {
        if let token = request.header("AD-Service-Token"), let subject = Self.subject(of: token, now: now) {
            self.init(method: .serviceToken, subject: subject)
        } else if let token = request.header("Adobe-Subject-Token") ?? request.header("X-Roku-Reserved-Roku-Connect-Token"),
            let subject = Self.subject(of: token, now: now, opaqueAllowed: true)
        {
            self.init(method: .platform, subject: subject)
        } else {
            return nil
        }
    }

    init(method: Method, subject: String) {
        self.method = method
        self.subject = subject
    }

    /// `iss|sub` of a JWS whose payload is JSON and not expired; for a JWE (five parts, encrypted) when allowed, the
    /// token itself. The signature is not checked: the stand-in has no platform's keys.
    static func subject(of token: String, now: Date, opaqueAllowed: Bool = false) -> String? {
        guard token.utf8.count <= 8192 else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 5, opaqueAllowed { return "jwe:" + token }
        guard parts.count == 3, let payload = base64URL(parts[1]),
            let claims = try? JSONSerialization.jsonObject(with: payload) as? [String: Any],
            let sub = claims["sub"] as? String, !sub.isEmpty
        else { return nil }
        if let exp = claims["exp"] as? Double, exp.isFinite, exp < now.timeIntervalSince1970 { return nil }
        return "\(claims["iss"] as? String ?? "")|\(sub)"
    }

    static func base64URL(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
