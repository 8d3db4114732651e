/// The paths of the web (JS-SDK / browser) variant of the protocol (spec §5.2.7, "Web/JS-SDK variants"): the browser
/// names of `sessionDevice`, `authorizeDevice` and `deviceShortAuthorize`, relative to `{sp}` like ``SDKEndpoint``,
/// and the device individualization call at the host's root (``deviceRegistration``).
///
/// A browser client walks: ``deviceRegistration`` → a registration code (`/reggie/v1/{requestor}/regcode`) →
/// ``SDKEndpoint/authenticate`` with `reg_code` → the MVPD's pages → ``session`` → ``authorize`` →
/// ``shortAuthorize``. With a cached authN and authZ token, the next media token is one ``shortAuthorize`` call.
public enum WebEndpoint: String, CaseIterable, Sendable {
    /// `POST /session` (`_method=GET`, `requestor_id`, `reg_code` or the device's cookies) → `<authnToken>`, or
    /// `<pendingLogout …/>` when the session was ended on the server.
    case session = "/session"
    /// `POST /authorize` (`resource_id`, `requestor_id`, `authentication_token`, `mso_id`, `userMeta=1`) →
    /// `<authzToken>`, or `<error><details>…</details></error>` when the MVPD refuses.
    case authorize = "/authorize"
    /// `POST /shortAuthorize` (`authz_token`, `requestor_id`, `session_guid`, `hashed_guid=false`) → the media token.
    case shortAuthorize = "/shortAuthorize"

    /// `POST /indiv/devices` with `{"fingerprint": …}` → `{"deviceId": …}` and a `pass_sfp` header. At the host's
    /// root, not under `{sp}`.
    public static let deviceRegistration = "/indiv/devices"
}

/// The request headers of the web variant (spec §5.1 CORS list, §5.2.7). The backend accepts them all and reads
/// ``deviceID`` and ``serverFingerprint`` to know the device; the others are informational.
public enum WebHeader: String, CaseIterable, Sendable {
    /// `ap_42`: the user (`anonymous`).
    case user = "ap_42"
    /// `ap_11`: the platform (`Linux i686`).
    case platform = "ap_11"
    /// `ap_z`: the browser's user agent.
    case userAgent = "ap_z"
    /// `ap_19`: the SAML name ID (`simpleSamlNameID` of the authN token).
    case samlNameID = "ap_19"
    /// `ap_21`: the device ID from ``WebEndpoint/deviceRegistration``.
    case deviceID = "ap_21"
    /// `ap_23`: the SAML session index (`simpleSamlSessionIndex` of the authN token).
    case samlSessionIndex = "ap_23"
    /// `pass_sfp`: the server fingerprint ``WebEndpoint/deviceRegistration`` answered with (also a cookie).
    case serverFingerprint = "pass_sfp"
}

/// The body of `POST /indiv/devices`: the browser's own fingerprint (any opaque text, at most
/// ``maximumLength`` characters).
public struct DeviceRegistrationRequest: Codable, Sendable, Equatable {
    /// The browser's fingerprint.
    public var fingerprint: String
    /// The longest fingerprint accepted.
    public static let maximumLength = 512

    /// Creates a request.
    public init(fingerprint: String) { self.fingerprint = fingerprint }
}

/// The answer of `POST /indiv/devices`: the device ID to send as `ap_21` (the `pass_sfp` header comes with it).
public struct DeviceRegistrationResponse: Codable, Sendable, Equatable {
    /// The device ID the backend gave this fingerprint.
    public var deviceId: String

    /// Creates an answer.
    public init(deviceId: String) { self.deviceId = deviceId }
}

/// Cross-origin rules of the web variant (spec §5.1): a Programmer's page on its own origin calls the backend, so the
/// browser asks first (`OPTIONS`) and may send and read only the headers listed here.
public enum WebCORS {
    /// Request headers a page may send: the `ap_*` and `pass_sfp` headers and the real servers' others.
    public static let allowedHeaders =
        WebHeader.allCases.map(\.rawValue) + [
            "authorization", "content-type", "AP-Session-Identifier", "AP-Device-Identifier", "AP-SDK-Identifier",
            "X-Device-Info",
        ]
    /// Response headers a page may read.
    public static let exposedHeaders = [
        WebHeader.serverFingerprint.rawValue, "Authzf-Error-Code", "Authzf-Sub-Error-Code", "Authzf-Error-Details",
    ]
}
