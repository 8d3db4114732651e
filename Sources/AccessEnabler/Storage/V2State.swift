import Foundation
import PassProtocol

/// What the SDK keeps on the device when it speaks REST API v2 (``AccessEnablerConfiguration/registrationStorage``):
/// the registered client's credentials and access token, the device identifier it sent, and per Programmer the MVPD
/// the user chose and a copy of the last profile. No authentication, authorization or media token: on v2 those live
/// on the service (docs/sdk.md, "The seeds' rules on v2"). JSON with sorted keys.
public struct V2State: Codable, Sendable, Equatable {
    /// A registered client (dynamic client registration) of one service and software statement.
    public struct Client: Codable, Sendable, Equatable {
        public var clientID: String
        public var clientSecret: String
        public var accessToken: String?
        /// When ``accessToken`` expires (epoch milliseconds).
        public var accessTokenExpires: Int64?

        public init(clientID: String, clientSecret: String, accessToken: String? = nil, accessTokenExpires: Int64? = nil) {
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.accessToken = accessToken
            self.accessTokenExpires = accessTokenExpires
        }
    }

    /// A copy of a profile the service answered (FAQ `#authentication-phase-faq8`): what answers when the service
    /// cannot be reached.
    public struct KeptProfile: Codable, Sendable, Equatable {
        public var mvpd: String
        public var type: String
        public var issuer: String
        public var notBefore: Int64
        public var notAfter: Int64
        public var attributes: [String: V2.Attribute]

        public init(mvpd: String, _ profile: V2.Profile) {
            self.mvpd = mvpd
            type = profile.type
            issuer = profile.issuer
            notBefore = profile.notBefore
            notAfter = profile.notAfter
            attributes = profile.attributes
        }

        /// The profile as the service sent it.
        public var profile: V2.Profile {
            V2.Profile(notBefore: notBefore, notAfter: notAfter, issuer: issuer, type: type, attributes: attributes)
        }

        /// When the profile ends.
        public var expires: Date { EpochMilliseconds.date(notAfter) }
    }

    /// What the SDK keeps for one Programmer.
    public struct Requestor: Codable, Sendable, Equatable {
        /// The MVPD the user chose last (getSelectedProvider; getAuthentication skips the picker with it).
        public var currentMvpdID: String?
        /// Whether ``currentMvpdID`` may sign in without the picker (the seeds' rule: off after a failed login).
        public var canAuthenticate: Bool
        /// The last profile the service answered for this Programmer.
        public var profile: KeptProfile?
        /// For an `appleSSO` profile: the `AP-Partner-Framework-Status` value sent with its calls.
        public var partnerFrameworkStatus: String?
        /// True when the sign-in was made through the platform's TV provider (Apple TV's dialog, cookbook flow E):
        /// logout then says VSA203 as for an `appleSSO` profile.
        public var platformSignIn: Bool?

        public init(currentMvpdID: String? = nil, canAuthenticate: Bool = false, profile: KeptProfile? = nil, partnerFrameworkStatus: String? = nil) {
            self.currentMvpdID = currentMvpdID
            self.canAuthenticate = canAuthenticate
            self.profile = profile
            self.partnerFrameworkStatus = partnerFrameworkStatus
        }

        var isEmpty: Bool { self == Requestor() }
    }

    public static let currentVersion = 1

    public var version: Int
    /// The device identifier the SDK sends as `AP-Device-Identifier` (the device ID itself, not the header's form).
    public var deviceIdentifier: String?
    /// Registered clients by ``clientKey(origin:softwareStatement:)``.
    public var clients: [String: Client]
    /// Per Programmer (requestor ID).
    public var requestors: [String: Requestor]

    public init(version: Int = Self.currentVersion, deviceIdentifier: String? = nil, clients: [String: Client] = [:], requestors: [String: Requestor] = [:]) {
        self.version = version
        self.deviceIdentifier = deviceIdentifier
        self.clients = clients
        self.requestors = requestors
    }

    /// One registration per service and software statement: `"<REST origin> <first 12 hex digits of SHA-256(statement)>"`.
    public static func clientKey(origin: URL, softwareStatement: String) -> String {
        origin.absoluteString + " " + V2.statementDigest(softwareStatement)
    }

    /// Changes one Programmer's entry (an entry left empty is removed).
    mutating func updateRequestor(_ id: String, _ change: (inout Requestor) -> Void) {
        var entry = requestors[id] ?? Requestor()
        change(&entry)
        requestors[id] = entry.isEmpty ? nil : entry
    }

    /// The state as stored: JSON with sorted keys.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return (try? encoder.encode(self)) ?? Data()
    }

    /// The state in `data`; an empty state for no data.
    public static func decode(_ data: Data?) throws -> V2State {
        guard let data, !data.isEmpty else { return V2State() }
        return try JSONDecoder().decode(V2State.self, from: data)
    }
}
