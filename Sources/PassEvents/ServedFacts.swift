/// What a server-side recorder (the backend that served an exchange, or a proxy that forwarded it) knew of an
/// exchange beyond its bytes: the client's kind, the identities it revealed, the token it issued or refused, and any
/// change it made to the customer's sign-in. An SDK records none of this (its exchanges have `served == nil`).
///
/// Personal data (user ID, username) is kept, as for SDK events: support staff search by it; exports replace it
/// (the console's personal-data rule). Secrets never get here: the recorder redacts parameters, headers and bodies by
/// ``EntitlementEvent/redacted()``, and a login form's password is never read.
public struct ServedFacts: Codable, Sendable, Equatable {
    /// Who recorded the exchange.
    public var recorder: Recorder
    /// The protocol the client spoke.
    public var client: ClientKind
    /// The operation in the protocol's words (`REST v1 authorize`, `web session`, `MVPD login page`).
    public var operation: String?
    /// The second-screen registration code the exchange concerned.
    public var registrationCode: String?
    /// The browser's `pass_sfp` (the backend's signed name for a registered browser), shortened.
    public var passSFP: String?
    /// The user ID (the sign-in's GUID) once the server knows who it is.
    public var userID: String?
    /// The MVPD username the customer typed (login pages) or the sign-in belongs to.
    public var username: String?
    /// A change the exchange made to the customer's sign-in, if any.
    public var change: ServerChange?
    /// The answer told the client its session ended on the server (web `<pendingLogout/>`).
    public var pendingLogout: Bool?
    /// The token issued or presented, decoded, in words (`authN token of alice at Cablevision, expires …`).
    public var token: String?
    /// The advanced status code of an error answer, if it carried one.
    public var advancedStatus: String?
    /// A rule of the recorder that acted on the exchange (a proxy rule: `503 on authorize`), in words.
    public var rule: String?

    public init(
        recorder: Recorder, client: ClientKind, operation: String? = nil, registrationCode: String? = nil,
        passSFP: String? = nil, userID: String? = nil, username: String? = nil, change: ServerChange? = nil,
        pendingLogout: Bool? = nil, token: String? = nil, advancedStatus: String? = nil, rule: String? = nil
    ) {
        self.recorder = recorder
        self.client = client
        self.operation = operation
        self.registrationCode = registrationCode
        self.passSFP = passSFP
        self.userID = userID
        self.username = username
        self.change = change
        self.pendingLogout = pendingLogout
        self.token = token
        self.advancedStatus = advancedStatus
        self.rule = rule
    }

    /// Who recorded a served exchange. Any text decodes.
    public struct Recorder: RawRepresentable, Codable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The entitlement backend that answered (PassBackend).
        public static let backend = Recorder(rawValue: "backend")
        /// The recording proxy in front of a real service.
        public static let proxy = Recorder(rawValue: "proxy")
    }
}

/// A change a served exchange made to a customer's sign-in on the server. Any text decodes.
public struct ServerChange: RawRepresentable, Codable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A registration code was issued for the device.
    public static let registrationCodeIssued = ServerChange(rawValue: "registrationCodeIssued")
    /// The customer signed in with the MVPD (an authN token exists on the server).
    public static let signedIn = ServerChange(rawValue: "signedIn")
    /// The client logged out: the sign-in ended at the customer's request.
    public static let loggedOut = ServerChange(rawValue: "loggedOut")
    /// The TV provider (or an operator on its behalf) ended the sign-in on the server.
    public static let revoked = ServerChange(rawValue: "revoked")

    /// In words, for a session's timeline.
    public var label: String {
        switch self {
        case .registrationCodeIssued: "registration code issued"
        case .signedIn: "signed in"
        case .loggedOut: "logged out"
        case .revoked: "sign-in revoked by the TV provider"
        default: rawValue
        }
    }
}

/// Where events go: the in-process history of a console, or an ``EventReporter`` sending them to one.
public protocol EventSink: Sendable {
    /// Takes one event; never waits.
    func emit(_ event: EntitlementEvent)
    /// Hears that `count` events were dropped before they could be emitted (a source's bounded queue overflowed), so
    /// the count reaches the console with the events that did arrive: nothing is lost without being counted.
    func lost(_ count: Int)
}

extension EventReporter: EventSink {
    public func emit(_ event: EntitlementEvent) { add(event) }
}
