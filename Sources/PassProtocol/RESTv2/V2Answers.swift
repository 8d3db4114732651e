import Foundation

/// The answers of REST API v2 (docs/rest-api-v2.md §3), shaped as the vendor's samples: the backend writes them, the
/// SDK's v2 transport and the console read them. Timestamps are epoch milliseconds: strings in session answers,
/// numbers in profiles and decisions, as in the samples.
public enum V2 {
    /// `POST /api/v2/{sp}/sessions` and `POST …/sessions/{code}`.
    public struct Session: Codable, Sendable, Equatable {
        public var actionName: String
        public var actionType: String
        public var reasonType: String
        public var url: String?
        public var missingParameters: [String]?
        public var code: String?
        public var sessionId: String
        public var mvpd: String?
        public var serviceProvider: String
        public var notBefore: String?
        public var notAfter: String?

        public init(
            actionName: String, actionType: String, reasonType: String, url: String?, missingParameters: [String]? = nil,
            code: String?, sessionId: String, mvpd: String?, serviceProvider: String, notBefore: String?, notAfter: String?
        ) {
            self.actionName = actionName
            self.actionType = actionType
            self.reasonType = reasonType
            self.url = url
            self.missingParameters = missingParameters
            self.code = code
            self.sessionId = sessionId
            self.mvpd = mvpd
            self.serviceProvider = serviceProvider
            self.notBefore = notBefore
            self.notAfter = notAfter
        }
    }

    /// The partner authentication request of `sessions/sso/{partner}`: a SAML request for the partner framework.
    public struct AuthenticationRequest: Codable, Sendable, Equatable {
        public var type: String
        public var request: String
        public var attributesNames: [String]
        public init(type: String = "saml", request: String, attributesNames: [String]) {
            self.type = type
            self.request = request
            self.attributesNames = attributesNames
        }
    }

    /// `POST /api/v2/{sp}/sessions/sso/{partner}`: a session answer, or the partner's request to make.
    public struct PartnerSession: Codable, Sendable, Equatable {
        public var session: Session
        public var authenticationRequest: AuthenticationRequest?

        public init(session: Session, authenticationRequest: AuthenticationRequest? = nil) {
            self.session = session
            self.authenticationRequest = authenticationRequest
        }

        public init(from decoder: any Decoder) throws {
            session = try Session(from: decoder)
            authenticationRequest = try decoder.container(keyedBy: Keys.self).decodeIfPresent(AuthenticationRequest.self, forKey: .authenticationRequest)
        }

        public func encode(to encoder: any Encoder) throws {
            try session.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encodeIfPresent(authenticationRequest, forKey: .authenticationRequest)
        }

        enum Keys: String, CodingKey { case authenticationRequest }
    }

    /// The `AP-Partner-Framework-Status` header's content (Base64 JSON): what the partner framework (Apple's video
    /// subscriber account) said of the user's permission and provider.
    public struct PartnerFrameworkStatus: Codable, Sendable, Equatable {
        public struct Permission: Codable, Sendable, Equatable { public var accessStatus: String? }
        public struct Provider: Codable, Sendable, Equatable {
            public var id: String?
            public var expirationDate: String?
        }
        public var frameworkPermissionInfo: Permission?
        public var frameworkProviderInfo: Provider?

        /// Reads the header's value; nil when it is not Base64 of such JSON.
        public static func decode(_ header: String) -> PartnerFrameworkStatus? {
            guard header.utf8.count <= 8192, let data = Data(base64Encoded: header) else { return nil }
            return try? JSONDecoder().decode(PartnerFrameworkStatus.self, from: data)
        }

        public init(accessStatus: String?, providerID: String?, expirationDate: String?) {
            frameworkPermissionInfo = Permission(accessStatus: accessStatus)
            frameworkProviderInfo = Provider(id: providerID, expirationDate: expirationDate)
        }

        /// The header value.
        public var base64: String { ((try? JSONEncoder().encode(self)) ?? Data()).base64EncodedString() }
    }

    /// `GET /api/v2/{sp}/sessions/{code}`.
    public struct SessionInfo: Codable, Sendable, Equatable {
        public var existingParameters: [String: String]
        public var missingParameters: [String]?
        public var device: DeviceInfo
        public var notBefore: String
        public var notAfter: String

        public init(existingParameters: [String: String], missingParameters: [String]?, device: DeviceInfo, notBefore: String, notAfter: String) {
            self.existingParameters = existingParameters
            self.missingParameters = missingParameters
            self.device = device
            self.notBefore = notBefore
            self.notAfter = notAfter
        }
    }

    /// One attribute of a profile: its value (simple, list or map, as the vendor documents) and whether it is
    /// encrypted (`plain` or `enc`).
    public struct Attribute: Codable, Sendable, Equatable {
        public var value: JSONValue
        public var state: String
        public init(value: JSONValue, state: String = "plain") {
            self.value = value
            self.state = state
        }
        public init(value: String, state: String = "plain") { self.init(value: .string(value), state: state) }
    }

    /// A profile: what an authentication is on v2.
    public struct Profile: Codable, Sendable, Equatable {
        public var notBefore: Int64
        public var notAfter: Int64
        public var issuer: String
        public var type: String
        public var attributes: [String: Attribute]
        public init(notBefore: Int64, notAfter: Int64, issuer: String, type: String, attributes: [String: Attribute]) {
            self.notBefore = notBefore
            self.notAfter = notAfter
            self.issuer = issuer
            self.type = type
            self.attributes = attributes
        }
    }

    /// `GET /api/v2/{sp}/profiles[/{mvpd}|/code/{code}]`.
    public struct Profiles: Codable, Sendable, Equatable {
        public var profiles: [String: Profile]
        public init(profiles: [String: Profile]) { self.profiles = profiles }
    }

    /// The media token of a permitted decision.
    public struct Token: Codable, Sendable, Equatable {
        public var notBefore: Int64
        public var notAfter: Int64
        public var serializedToken: String
        public init(notBefore: Int64, notAfter: Int64, serializedToken: String) {
            self.notBefore = notBefore
            self.notAfter = notAfter
            self.serializedToken = serializedToken
        }
    }

    /// One decision of `decisions/authorize` or `decisions/preauthorize`.
    public struct Decision: Codable, Sendable, Equatable {
        public var resource: String
        public var serviceProvider: String
        public var mvpd: String
        public var source: String
        public var authorized: Bool
        public var token: Token?
        public var error: EnhancedError?
        public var notBefore: Int64?
        public var notAfter: Int64?
        public init(
            resource: String, serviceProvider: String, mvpd: String, source: String, authorized: Bool, token: Token? = nil,
            error: EnhancedError? = nil, notBefore: Int64? = nil, notAfter: Int64? = nil
        ) {
            self.resource = resource
            self.serviceProvider = serviceProvider
            self.mvpd = mvpd
            self.source = source
            self.authorized = authorized
            self.token = token
            self.error = error
            self.notBefore = notBefore
            self.notAfter = notAfter
        }
    }

    public struct Decisions: Codable, Sendable, Equatable {
        public var decisions: [Decision]
        public init(decisions: [Decision]) { self.decisions = decisions }
    }

    /// What the app must do to finish a logout at one MVPD.
    public struct Logout: Codable, Sendable, Equatable {
        public var actionName: String
        public var actionType: String
        public var mvpd: String
        public var url: String?
        public init(actionName: String, actionType: String, mvpd: String, url: String? = nil) {
            self.actionName = actionName
            self.actionType = actionType
            self.mvpd = mvpd
            self.url = url
        }
    }

    public struct Logouts: Codable, Sendable, Equatable {
        public var logouts: [String: Logout]
        public init(logouts: [String: Logout]) { self.logouts = logouts }
    }

    /// `GET /api/v2/{sp}/configuration`.
    public struct Configuration: Codable, Sendable, Equatable {
        public struct Domain: Codable, Sendable, Equatable {
            public var name: String
            public var mvpdInitiated: Bool
            public init(name: String, mvpdInitiated: Bool = false) {
                self.name = name
                self.mvpdInitiated = mvpdInitiated
            }
        }
        public struct MVPD: Codable, Sendable, Equatable {
            public var id: String
            public var displayName: String
            public var logoUrl: String
            public var authPerAggregator: Bool?
            public var isTempPass: Bool?
            public var isProxy: Bool?
            public var passiveAuthnEnabled: Bool?
            public var enablePlatformServices: Bool?
            public var displayInPlatformPicker: Bool?
            public var boardingStatus: String?
            public var platformMappingId: String?
            public init(id: String, displayName: String, logoUrl: String, authPerAggregator: Bool? = nil, passiveAuthnEnabled: Bool? = nil) {
                self.id = id
                self.displayName = displayName
                self.logoUrl = logoUrl
                self.authPerAggregator = authPerAggregator
                self.passiveAuthnEnabled = passiveAuthnEnabled
            }
        }
        public struct Requestor: Codable, Sendable, Equatable {
            public var id: String
            public var name: String
            public var domains: [Domain]
            public var mvpds: [MVPD]
            public init(id: String, name: String, domains: [Domain], mvpds: [MVPD]) {
                self.id = id
                self.name = name
                self.domains = domains
                self.mvpds = mvpds
            }
        }
        public var device: String
        public var clientType: String
        public var os: String
        public var requestor: Requestor
        public init(device: String, clientType: String, os: String, requestor: Requestor) {
            self.device = device
            self.clientType = clientType
            self.os = os
            self.requestor = requestor
        }
    }
}

extension V2.Decisions {
    /// The answer as JSON bytes, written by hand: Foundation's `JSONEncoder` was 12% of the backend's CPU on the
    /// decision route (`perf record` under wrk, docs/benchmarks.md "Issue #26"). The same fields and values as the
    /// `Codable` form (a test decodes it back); the one `error` object goes through `JSONEncoder` (denials are rare).
    public func jsonBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + decisions.count * 700)
        out.append(contentsOf: Array(#"{"decisions":["#.utf8))
        for (index, decision) in decisions.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: Array(#"{"resource":"#.utf8))
            JSONText.appendString(decision.resource, to: &out)
            out.append(contentsOf: Array(#","serviceProvider":"#.utf8))
            JSONText.appendString(decision.serviceProvider, to: &out)
            out.append(contentsOf: Array(#","mvpd":"#.utf8))
            JSONText.appendString(decision.mvpd, to: &out)
            out.append(contentsOf: Array(#","source":"#.utf8))
            JSONText.appendString(decision.source, to: &out)
            out.append(contentsOf: Array((decision.authorized ? #","authorized":true"# : #","authorized":false"#).utf8))
            if let token = decision.token {
                out.append(contentsOf: Array(#","token":{"notBefore":\#(token.notBefore),"notAfter":\#(token.notAfter),"serializedToken":"#.utf8))
                JSONText.appendString(token.serializedToken, to: &out)
                out.append(UInt8(ascii: "}"))
            }
            if let error = decision.error, let encoded = try? JSONEncoder().encode(error) {
                out.append(contentsOf: Array(#","error":"#.utf8))
                out.append(contentsOf: encoded)
            }
            if let notBefore = decision.notBefore { out.append(contentsOf: Array(#","notBefore":\#(notBefore)"#.utf8)) }
            if let notAfter = decision.notAfter { out.append(contentsOf: Array(#","notAfter":\#(notAfter)"#.utf8)) }
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: Array("]}".utf8))
        return out
    }
}
