/// Which protocol a client speaks to the entitlement service: the seeds' iOS or tvOS SDK (`adobe-services`), the
/// web/JS variant, Clientless REST API v1, REST API v2, or one this build does not know. A session's kind is the
/// kind of its events: an SDK app's events are its platform's; what the backend or a proxy records names the kind
/// the protocol revealed (``ServedFacts/client``).
///
/// On the wire and in the history (the session row's `platform` column) it is its ``rawValue``; the SDK kinds keep
/// the platform's own values (`ios`, `tvos`), so sessions written before the other kinds existed read back unchanged.
/// Any text decodes (an unknown kind is kept as it came).
public struct ClientKind: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// An iOS app on the AccessEnabler SDK.
    public static let ios = ClientKind(rawValue: Platform.iOS.rawValue)
    /// A tvOS app on the AccessEnabler SDK.
    public static let tvos = ClientKind(rawValue: Platform.tvOS.rawValue)
    /// A browser: the web/JS variant of `adobe-services` (`/indiv/devices`, `pass_sfp`, `ap_*` headers).
    public static let web = ClientKind(rawValue: "web")
    /// Clientless REST API v1 (`/api/v1`, `/reggie/v1`): a living-room box, a console, a smart TV.
    public static let restV1 = ClientKind(rawValue: "rest-v1")
    /// REST API v2 (`/api/v2`).
    public static let restV2 = ClientKind(rawValue: "rest-v2")

    /// The kinds this build knows, in the order lists show them.
    public static let known: [ClientKind] = [.ios, .tvos, .web, .restV1, .restV2]

    /// The SDK kind of an app on `platform`.
    public init(platform: Platform) { self.init(rawValue: platform.rawValue) }

    /// The SDK platform, for the SDK kinds; `nil` for the others.
    public var sdkPlatform: Platform? { Platform(rawValue: rawValue) }

    /// In words, for lists: `iOS SDK`, `tvOS SDK`, `Web (JS)`, `REST API v1`, `REST API v2`, or the raw text.
    public var label: String {
        switch self {
        case .ios: "iOS SDK"
        case .tvos: "tvOS SDK"
        case .web: "Web (JS)"
        case .restV1: "REST API v1"
        case .restV2: "REST API v2"
        default: rawValue
        }
    }

    public var description: String { rawValue }
}

extension EntitlementEvent {
    /// The kind of client the event is about: what the recording server saw, or the SDK app's platform.
    public var clientKind: ClientKind {
        if case .httpExchange(let exchange) = kind, let served = exchange.served { return served.client }
        return ClientKind(platform: app.platform)
    }
}
