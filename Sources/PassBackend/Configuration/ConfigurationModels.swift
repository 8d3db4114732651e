import Foundation
import PassProtocol

/// A Programmer: one requestor ID and the MVPDs it integrates.
public struct Programmer: Codable, Sendable, Equatable {
    /// The requestor ID (`REF30`).
    public var id: String
    /// The name shown to people (defaults to the ID).
    public var name: String
    /// IDs of the MVPDs this Programmer integrates, in picker order.
    public var mvpds: [String]
    /// Registered domains (second-screen `domain_name`).
    public var domains: [String]
    /// The user-metadata items this Programmer receives encrypted for it, and its key; nil: none.
    public var metadataEncryption: MetadataEncryption? = nil

    /// Creates a Programmer.
    public init(id: String, name: String, mvpds: [String], domains: [String] = ["adobe.com"]) {
        self.id = id
        self.name = name
        self.mvpds = mvpds
        self.domains = domains
    }

    /// Decodes one as `Config/demo.json` writes it; optional keys take the defaults of ``init(id:name:mvpds:domains:)``.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? id
        mvpds = try c.decode([String].self, forKey: .mvpds)
        domains = try c.decodeIfPresent([String].self, forKey: .domains) ?? ["adobe.com"]
        metadataEncryption = try c.decodeIfPresent(MetadataEncryption.self, forKey: .metadataEncryption)
    }
}

/// An MVPD (TV provider) and how it behaves.
public struct MVPD: Codable, Sendable, Equatable {
    /// The MVPD ID (`Dish`).
    public var id: String
    /// The name the provider picker shows (defaults to the ID).
    public var displayName: String
    /// The logo the picker shows; empty for none.
    public var logoURL: String
    /// "Authentication per Requestor": tokens are bound to the Programmer that obtained them (no copy-SSO;
    /// passive authentication instead).
    public var authPerRequestor: Bool
    /// Whether passive authentication may run for this MVPD.
    public var passiveAuthn: Bool
    /// Supports Apple's single sign-on (platform services).
    public var appleSSO: Bool
    /// The login page must be shown in SFSafariViewController (`navigateToUrl:useSVC:`).
    public var requiresSVC: Bool
    /// Authentication token lifetime in seconds.
    public var authnTTL: Int
    /// Authorization token lifetime in seconds.
    public var authzTTL: Int
    /// The shape of its sign-in pages: SAML redirect or POST binding or OAuth, field names, intermediate page.
    public var loginPage: MVPDLoginPage

    /// Creates an MVPD; by default plain (copy-SSO, passive authentication allowed), 24 h sign-ins, 1 h authorizations.
    public init(
        id: String, displayName: String, logoURL: String = "", authPerRequestor: Bool = false,
        passiveAuthn: Bool = true, appleSSO: Bool = false, requiresSVC: Bool = false, authnTTL: Int = 86400,
        authzTTL: Int = 3600, loginPage: MVPDLoginPage = .init()
    ) {
        self.id = id
        self.displayName = displayName
        self.logoURL = logoURL
        self.authPerRequestor = authPerRequestor
        self.passiveAuthn = passiveAuthn
        self.appleSSO = appleSSO
        self.requiresSVC = requiresSVC
        self.authnTTL = authnTTL
        self.authzTTL = authzTTL
        self.loginPage = loginPage
    }

    /// Decodes one as `Config/demo.json` writes it; optional keys take the defaults of ``init(id:displayName:logoURL:authPerRequestor:passiveAuthn:appleSSO:requiresSVC:authnTTL:authzTTL:loginPage:)``.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        displayName = try c.decodeIfPresent(String.self, forKey: .displayName) ?? id
        logoURL = try c.decodeIfPresent(String.self, forKey: .logoURL) ?? ""
        authPerRequestor = try c.decodeIfPresent(Bool.self, forKey: .authPerRequestor) ?? false
        passiveAuthn = try c.decodeIfPresent(Bool.self, forKey: .passiveAuthn) ?? true
        appleSSO = try c.decodeIfPresent(Bool.self, forKey: .appleSSO) ?? false
        requiresSVC = try c.decodeIfPresent(Bool.self, forKey: .requiresSVC) ?? false
        authnTTL = try c.decodeIfPresent(Int.self, forKey: .authnTTL) ?? 86400
        authzTTL = try c.decodeIfPresent(Int.self, forKey: .authzTTL) ?? 3600
        loginPage = try c.decodeIfPresent(MVPDLoginPage.self, forKey: .loginPage) ?? .init()
    }
}

/// A protected resource.
public struct Resource: Codable, Sendable, Equatable {
    /// The resource ID apps ask authorization for (`sports`).
    public var id: String
    /// Its title.
    public var title: String

    /// Creates a resource.
    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}

/// An app registered for the REST v1 API: the HMAC key pair of the legacy `Authorization` header, and the
/// software statement it registers with (dynamic client registration).
public struct RegisteredApp: Codable, Sendable, Equatable {
    /// The app's name.
    public var name: String
    /// The Programmer it belongs to.
    public var requestorID: String
    /// The public half of the legacy HMAC key pair (named in the `Authorization` header).
    public var publicKey: String
    /// The secret the legacy header's HMAC-SHA1 is keyed with.
    public var secret: String
    /// The software statement for dynamic client registration (`/o/client/register`), if it has one.
    public var softwareStatement: String?
    /// The APIs its access tokens open (`api:client:v1`, `api:client:v2`); both when not given.
    public var scopes: [String]?

    /// The scopes granted: ``scopes``, or every API when the configuration names none.
    public var grantedScopes: [String] { scopes ?? Self.allScopes }
    public static let allScopes = ["api:client:v1", "api:client:v2"]

    /// Creates a registered app.
    public init(
        name: String, requestorID: String, publicKey: String, secret: String, softwareStatement: String? = nil, scopes: [String]? = nil
    ) {
        self.name = name
        self.requestorID = requestorID
        self.publicKey = publicKey
        self.secret = secret
        self.softwareStatement = softwareStatement
        self.scopes = scopes
    }
}

/// Lifetimes that are not per MVPD.
public struct TokenSettings: Codable, Sendable, Equatable {
    /// Media token lifetime in seconds (seed: 5 minutes).
    public var mediaTokenTTL: Int
    /// Default registration code lifetime in seconds (30 minutes; at most 36000).
    public var regcodeTTL: Int
    /// How long a legacy `Authorization` header's `request_time` stays acceptable, in seconds.
    public var requestFreshness: Int

    /// Creates the settings; the defaults are the seed's (5 min media tokens, 30 min codes, 5 min freshness).
    public init(mediaTokenTTL: Int = 300, regcodeTTL: Int = 1800, requestFreshness: Int = 300) {
        self.mediaTokenTTL = mediaTokenTTL
        self.regcodeTTL = regcodeTTL
        self.requestFreshness = requestFreshness
    }

    /// Decodes the settings; a key left out takes its default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mediaTokenTTL = try c.decodeIfPresent(Int.self, forKey: .mediaTokenTTL) ?? 300
        regcodeTTL = try c.decodeIfPresent(Int.self, forKey: .regcodeTTL) ?? 1800
        requestFreshness = try c.decodeIfPresent(Int.self, forKey: .requestFreshness) ?? 300
    }
}

/// A TempPass MVPD (REST API v2 temporary access, docs/rest-api-v2.md §5.8): decisions at it permit for `ttl` seconds
/// from a device's first one (basic), or per user identity (`AP-TempPass-Identity`) for at most `maxResources`
/// resources (promotional).
public struct TempPassMVPD: Codable, Sendable, Equatable {
    public var id: String
    public var displayName: String
    /// The Programmers it is offered to.
    public var requestors: [String]
    /// Seconds of access from the first decision.
    public var ttl: Int
    /// Promotional TempPass: keyed by the user identity header, not the device.
    public var promotional: Bool
    /// Promotional TempPass: how many resources one identity may play.
    public var maxResources: Int?

    public init(id: String, displayName: String, requestors: [String], ttl: Int, promotional: Bool = false, maxResources: Int? = nil) {
        self.id = id
        self.displayName = displayName
        self.requestors = requestors
        self.ttl = ttl
        self.promotional = promotional
        self.maxResources = maxResources
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        displayName = try c.decodeIfPresent(String.self, forKey: .displayName) ?? id
        requestors = try c.decode([String].self, forKey: .requestors)
        ttl = try c.decode(Int.self, forKey: .ttl)
        promotional = try c.decodeIfPresent(Bool.self, forKey: .promotional) ?? false
        maxResources = try c.decodeIfPresent(Int.self, forKey: .maxResources)
    }
}
