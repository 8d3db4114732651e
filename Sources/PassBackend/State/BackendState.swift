import Foundation
import PassProtocol

/// A login in progress: created by the login URL, completed by the MVPD's form.
struct LoginSession: Sendable, Equatable {
    var id: String
    var requestorID: String
    var mvpdID: String
    var deviceID: String
    var redirectURL: String
    var passive: Bool
    var regcode: String?
    var created: Date
    /// The ID of the SP's `AuthnRequest`; the MVPD's `Response` must answer it (`InResponseTo`).
    var requestID = SAMLNames.newID()
    /// The `AuthnRequest` ID the MVPD received (HTTP-POST binding); it answers that one.
    var mvpdRequestID: String?
    /// The subscriber whose password the MVPD accepted, while its intermediate page shows.
    var signedInAs: String?
    /// The OAuth authorization code the MVPD handed out for it, and until when it can be redeemed (once).
    var oauthCode: String?
    var oauthCodeExpires: Date?
}

/// An authenticated user on one device for one Programmer: what an authN token stands for on the server.
public struct AuthSession: Sendable, Equatable, Codable {
    /// The session's ID, the `guid` of its authentication token.
    public var guid: String
    /// The Programmer it was obtained for.
    public var requestorID: String
    /// The MVPD the user signed in with.
    public var mvpdID: String
    /// The device it is bound to.
    public var deviceID: String
    /// What the user typed on the login page.
    public var username: String
    /// The user ID the MVPD asserts.
    public var userID: String
    /// When it began.
    public var issued: Date
    /// When its authentication token expires.
    public var expires: Date
    /// Ended on the server (logout elsewhere, revocation): tokens that name it are refused.
    public var revoked: Bool
    /// REST v1 `appId`: scopes the session to one app (no SSO).
    public var appID: String?
    /// `apple` when the sign-in came from the platform's single sign-on (Apple TV Provider), else nil.
    public var tokenSource: String? = nil
    /// The DCR client whose REST API v2 session the sign-in completed: its profile belongs to that client (the vendor:
    /// new client credentials mean signing in again). Nil for sign-ins of the legacy protocols.
    public var clientID: String? = nil
}

/// A server-side authorization (REST v1 keeps tokens on the server).
struct AuthZRecord: Sendable, Equatable {
    var requestorID: String
    var deviceID: String
    var resource: String
    var mvpdID: String
    var expires: Date
}

/// A registration code and its state.
struct RegistrationRecord: Sendable, Equatable {
    var code: RegistrationCode
    var expires: Date
}

/// One device's (or identity's) use of a TempPass.
struct TempPassUse: Sendable, Equatable {
    var started: Date
    var resources: [String] = []
}

/// A REST API v2 authentication session: what the app gave so far, until the user signs in with its code.
struct V2AuthenticationSession: Sendable, Equatable {
    var code: String
    var sessionID: String
    var serviceProvider: String
    /// The DCR client that created it (its profile will be that client's).
    var clientID: String?
    /// The single sign-on identity its create call carried (its sign-in becomes that identity's too).
    var sso: V2SSOIdentity? = nil
    var deviceID: String
    var deviceInfo: DeviceInfo?
    var mvpd: String?
    var domainName: String?
    var redirectURL: String?
    var created: Date
    var expires: Date

    /// The parameters still needed before the user can sign in, with the names the vendor's answers use.
    var missingParameters: [String] {
        (mvpd == nil ? ["mvpd"] : []) + (domainName == nil ? ["domainName"] : []) + (redirectURL == nil ? ["redirectUrl"] : [])
    }
}

/// The MVPD's own sign-in (its identity-provider cookie), which passive authentication reuses.
struct IdPSession: Sendable, Equatable {
    var mvpdID: String
    var username: String
}

/// A dynamically registered client and its access tokens.
struct RegisteredClient: Sendable, Equatable {
    var clientID: String
    var secret: String
    var app: RegisteredApp
}

/// Everything the backend remembers between requests. Guarded by ``PassBackend``'s lock.
struct BackendState: Sendable {
    var faults: FaultSettings
    var logins: [String: LoginSession] = [:]
    var sessions: [String: AuthSession] = [:]
    /// Logins that ended (completed or cancelled), kept an hour for the recorder only: it reads an exchange after its
    /// answer went out, and under load the login an MVPD page belonged to may have finished by then.
    var endedLogins: [String: LoginSession] = [:]
    /// Every sign-in an authN token was issued for, oldest first (at most ``keptSignIns``), kept after logout and
    /// after a later sign-in on the device: who a recorded session was signed in as (the console's replay asks).
    var signIns: [AuthSession] = []
    static let keptSignIns = 1000
    var authorizations: [String: AuthZRecord] = [:]
    var regcodes: [String: RegistrationRecord] = [:]
    /// TempPass use by `tempPassID|requestor|device-or-identity`: when it started and the resources played.
    var tempPassUses: [String: TempPassUse] = [:]
    /// REST API v2 single sign-on: the sign-in each platform identity or service-token user made (``V2SSOIdentity/key``).
    var v2SSO: [String: AuthSession] = [:]
    /// REST API v2 authentication sessions by code (their code is also a registration code in ``regcodes``).
    var v2Sessions: [String: V2AuthenticationSession] = [:]
    /// Second-screen uses of codes, oldest first (at most ``BackendService/keptActivationAttempts``).
    var activationAttempts: [ActivationAttempt] = []
    var usedMediaTokens: [String: Date] = [:]
    var nonces: [String: Date] = [:]
    var idpSessions: [String: IdPSession] = [:]
    var clients: [String: RegisteredClient] = [:]
    var accessTokens: [String: (clientID: String, expires: Date)] = [:]
    var revokedStatements: Set<String> = []
    var buckets: [String: (tokens: Double, updated: Date)] = [:]
    /// The visitor IDs received with sign-ins and authorizations, oldest first (see ``VisitorRecord``).
    var visitors: [VisitorRecord] = []

    static func sessionKey(_ requestorID: String, _ deviceID: String, appID: String? = nil) -> String {
        "\(requestorID)|\(deviceID)|\(appID ?? "")"
    }

    static func authorizationKey(_ requestorID: String, _ deviceID: String, _ resource: String) -> String {
        "\(requestorID)|\(deviceID)|\(resource)"
    }

    /// The live session of `requestorID` on `deviceID`, if any (expired or revoked ones included; callers judge).
    func session(_ requestorID: String, _ deviceID: String, appID: String? = nil) -> AuthSession? {
        sessions[Self.sessionKey(requestorID, deviceID, appID: appID)]
    }

    mutating func store(_ session: AuthSession) {
        sessions[Self.sessionKey(session.requestorID, session.deviceID, appID: session.appID)] = session
        signIns.removeAll { $0.guid == session.guid }
        signIns.append(session)
        if signIns.count > Self.keptSignIns { signIns.removeFirst(signIns.count - Self.keptSignIns) }
    }

    /// Marks the session under `key` revoked, in the live sessions and in the record of sign-ins alike
    /// (`/admin/sessions` and `/admin/signins` said different things about a revoked sign-in).
    mutating func revoke(_ key: String) {
        guard let guid = sessions[key]?.guid else { return }
        sessions[key]?.revoked = true
        for index in signIns.indices where signIns[index].guid == guid { signIns[index].revoked = true }
    }

    /// Ends every session and authorization of a device (logout: the server side of "clear all").
    mutating func endSessions(deviceID: String, requestorID: String? = nil) -> Int {
        let keys = sessions.filter { $0.value.deviceID == deviceID && (requestorID == nil || $0.value.requestorID == requestorID) }
            .map(\.key)
        for key in keys { sessions.removeValue(forKey: key) }
        authorizations = authorizations.filter {
            !($0.value.deviceID == deviceID && (requestorID == nil || $0.value.requestorID == requestorID))
        }
        return keys.count
    }

    /// Ends the login in progress `id`, keeping it for the recorder (at most ``keptEndedLogins``).
    mutating func keepEnded(_ id: String) {
        guard let ended = logins.removeValue(forKey: id) else { return }
        if endedLogins.count >= Self.keptEndedLogins { endedLogins.removeAll() }
        endedLogins[id] = ended
    }

    static let keptEndedLogins = 10_000

    /// Drops used media tokens and nonces past their lifetime.
    mutating func prune(now: Date) {
        usedMediaTokens = usedMediaTokens.filter { $0.value > now }
        nonces = nonces.filter { $0.value > now }
        regcodes = regcodes.filter { $0.value.expires > now.addingTimeInterval(-3600) }
        v2Sessions = v2Sessions.filter { regcodes[$0.key] != nil }
        logins = logins.filter { $0.value.created > now.addingTimeInterval(-3600) }
        endedLogins = endedLogins.filter { $0.value.created > now.addingTimeInterval(-3600) }
    }
}
