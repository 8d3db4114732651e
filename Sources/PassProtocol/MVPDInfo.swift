/// One MVPD as the requestor configuration lists it (spec §5.2.1, §2.3).
///
/// The SDK builds its picker from these and remembers the flags that steer SSO and the login view.
public struct MVPDInfo: Sendable, Equatable, Codable {
    /// The MVPD ID (`id`; `mso_id` on the wire), e.g. `Cablevision`.
    public var id: String
    /// The name shown in the picker (`displayName`).
    public var displayName: String
    /// The logo address (`logoUrl`).
    public var logoURL: String
    /// Whether passive (background) authentication is allowed (`passiveAuthnEnabled`; absent means `true`).
    public var passiveAuthnEnabled: Bool
    /// Authentication per Requestor: tokens are not shared across requestors (`authPerAggregator`).
    public var authPerAggregator: Bool
    /// Whether the MVPD supports platform (Apple) SSO (`enablePlatformServices`).
    public var enablePlatformServices: Bool
    /// Whether the login page must be shown in SFSafariViewController (`requiresSVC`).
    public var requiresSVC: Bool
    /// How long an authentication token for this MVPD lives, in seconds, when the backend says so.
    ///
    /// PassConsole's own element (`authenticationTTLSeconds`): Adobe sets this TTL per agreement and never
    /// publishes it in the configuration (spec §10 open question 13).
    public var authenticationTTLSeconds: Int?

    /// Creates an MVPD entry; flags default as an absent element would.
    public init(
        id: String,
        displayName: String,
        logoURL: String,
        passiveAuthnEnabled: Bool = true,
        authPerAggregator: Bool = false,
        enablePlatformServices: Bool = false,
        requiresSVC: Bool = false,
        authenticationTTLSeconds: Int? = nil
    ) {
        self.id = id
        self.displayName = displayName
        self.logoURL = logoURL
        self.passiveAuthnEnabled = passiveAuthnEnabled
        self.authPerAggregator = authPerAggregator
        self.enablePlatformServices = enablePlatformServices
        self.requiresSVC = requiresSVC
        self.authenticationTTLSeconds = authenticationTTLSeconds
    }

    enum CodingKeys: String, CodingKey {
        case id, displayName, logoUrl, passiveAuthnEnabled, authPerAggregator, enablePlatformServices
        case requiresSVC, authenticationTTLSeconds
    }

    /// Decodes the JSON twin; absent flags take the same defaults as in XML.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            displayName: try container.decode(String.self, forKey: .displayName),
            logoURL: try container.decode(String.self, forKey: .logoUrl),
            passiveAuthnEnabled: try container.lenientBool(.passiveAuthnEnabled) ?? true,
            authPerAggregator: try container.lenientBool(.authPerAggregator) ?? false,
            enablePlatformServices: try container.lenientBool(.enablePlatformServices) ?? false,
            requiresSVC: try container.lenientBool(.requiresSVC) ?? false,
            authenticationTTLSeconds: try container.lenientInt(.authenticationTTLSeconds)
        )
    }

    /// Encodes the JSON twin with the XML element names (`logoUrl`, not `logoURL`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(logoURL, forKey: .logoUrl)
        try container.encode(passiveAuthnEnabled, forKey: .passiveAuthnEnabled)
        try container.encode(authPerAggregator, forKey: .authPerAggregator)
        try container.encode(enablePlatformServices, forKey: .enablePlatformServices)
        try container.encode(requiresSVC, forKey: .requiresSVC)
        try container.encodeIfPresent(authenticationTTLSeconds, forKey: .authenticationTTLSeconds)
    }
}
