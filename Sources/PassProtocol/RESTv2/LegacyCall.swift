import Foundation

/// A call of the protocols the vendor switches off at the end of 2026 (the AccessEnabler SDKs' `adobe-services`,
/// Clientless REST API v1, the web/JS variant), and the REST API v2 call that replaces it (the vendor's migration
/// FAQ, docs/rest-api-v2.md §8.2). One table for the console's migration view.
public struct LegacyCall: Sendable, Hashable, Comparable {
    /// The protocol: `SDK`, `REST API v1`, `Web (JS)`.
    public var protocolName: String
    /// The call as written in the protocol's documentation (`POST /adobe-services/authorizeDevice`).
    public var name: String
    /// What replaces it on REST API v2.
    public var replacement: String

    public static func < (a: LegacyCall, b: LegacyCall) -> Bool { (a.protocolName, a.name) < (b.protocolName, b.name) }

    /// The legacy call an exchange is, from its method and path (`nil` for v2, DCR, MVPD pages and anything else).
    public static func of(method: String, path: String) -> LegacyCall? {
        let path = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        if path.utf8.starts(with: "/api/v1/".utf8) || path.utf8.starts(with: "/reggie/v1/".utf8) { return restV1(method, path) }
        if path.utf8.starts(with: "/indiv/".utf8) { return web("POST /indiv/devices", "AP-Device-Identifier on every call (the app makes and keeps the device ID)") }
        guard path.utf8.starts(with: "/adobe-services".utf8) else { return nil }
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        let sdk: (String, String)? = switch last {
        case _ where path.contains("/config/"): ("GET /adobe-services/config/{requestor}", "GET /api/v2/{sp}/configuration")
        case "saml" where path.hasSuffix("authenticate/saml"): ("GET /adobe-services/authenticate/saml", "POST /api/v2/{sp}/sessions, then the browser at /api/v2/authenticate/{sp}/{code}")
        case "sessionDevice": ("POST /adobe-services/sessionDevice", "GET /api/v2/{sp}/profiles/code/{code} (the profile after the sign-in)")
        case "authorizeDevice": ("POST /adobe-services/authorizeDevice", "POST /api/v2/{sp}/decisions/authorize/{mvpd}")
        case "deviceShortAuthorize": ("POST /adobe-services/deviceShortAuthorize", "the media token of POST /api/v2/{sp}/decisions/authorize/{mvpd}")
        case "preauthorize": ("POST /adobe-services/preauthorize", "POST /api/v2/{sp}/decisions/preauthorize/{mvpd}")
        case "logout": ("GET /adobe-services/logout", "GET /api/v2/{sp}/logout/{mvpd}")
        case "tokens": ("POST /adobe-services/tokens (Apple SSO)", "POST /api/v2/{sp}/sessions/sso/Apple and /profiles/sso/Apple")
        case "usermetadata": ("GET /adobe-services/usermetadata", "the attributes of GET /api/v2/{sp}/profiles/{mvpd}")
        case "session": ("POST /adobe-services/session (web)", "GET /api/v2/{sp}/profiles")
        case "authorize": ("POST /adobe-services/authorize (web)", "POST /api/v2/{sp}/decisions/authorize/{mvpd}")
        case "shortAuthorize": ("POST /adobe-services/shortAuthorize (web)", "the media token of POST /api/v2/{sp}/decisions/authorize/{mvpd}")
        default: nil
        }
        guard let sdk else { return nil }
        let isWeb = sdk.0.hasSuffix("(web)")
        return LegacyCall(protocolName: isWeb ? "Web (JS)" : "SDK", name: sdk.0, replacement: sdk.1)
    }

    static func web(_ name: String, _ replacement: String) -> LegacyCall {
        LegacyCall(protocolName: "Web (JS)", name: name, replacement: replacement)
    }

    static func restV1(_ method: String, _ path: String) -> LegacyCall? {
        let call: (String, String)?
        if path.utf8.starts(with: "/reggie/v1/".utf8) {
            call = ("\(method) /reggie/v1/{requestor}/regcode", "POST /api/v2/{sp}/sessions (its code), GET|POST /api/v2/{sp}/sessions/{code}")
        } else {
            let rest = path.dropFirst("/api/v1/".count)
            let first = rest.split(separator: "/").first.map(String.init) ?? ""
            call = switch first {
            case "config": ("GET /api/v1/config/{requestor}", "GET /api/v2/{sp}/configuration")
            case "authenticate" where rest.hasPrefix("authenticate/freepreview"): ("POST /api/v1/authenticate/freepreview", "POST /api/v2/{sp}/decisions/authorize/{tempPassMvpd}")
            case "authenticate": ("GET /api/v1/authenticate", "GET /api/v2/authenticate/{sp}/{code}")
            case "checkauthn": ("GET /api/v1/checkauthn", "GET /api/v2/{sp}/profiles (or /profiles/code/{code})")
            case "tokens" where rest.hasPrefix("tokens/authn"): ("GET /api/v1/tokens/authn", "GET /api/v2/{sp}/profiles/{mvpd}")
            case "tokens" where rest.hasPrefix("tokens/authz"): ("GET /api/v1/tokens/authz", "POST /api/v2/{sp}/decisions/authorize/{mvpd}")
            case "tokens" where rest.hasPrefix("tokens/media"), "mediatoken": ("GET /api/v1/tokens/media", "the media token of POST /api/v2/{sp}/decisions/authorize/{mvpd}")
            case "tokens" where rest.hasPrefix("tokens/usermetadata"): ("GET /api/v1/tokens/usermetadata", "the attributes of GET /api/v2/{sp}/profiles/{mvpd}")
            case "authorize": ("GET /api/v1/authorize", "POST /api/v2/{sp}/decisions/authorize/{mvpd}")
            case "preauthorize": ("GET /api/v1/preauthorize", "POST /api/v2/{sp}/decisions/preauthorize/{mvpd}")
            case "logout": ("DELETE /api/v1/logout", "GET /api/v2/{sp}/logout/{mvpd}")
            default: nil
            }
        }
        return call.map { LegacyCall(protocolName: "REST API v1", name: $0.0, replacement: $0.1) }
    }
}
