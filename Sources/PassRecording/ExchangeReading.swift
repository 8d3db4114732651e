import Foundation
import MicroHTTP
import PassEvents
import PassProtocol

/// What one exchange reveals on the wire, read from the request and its answer alone: the protocol
/// (``ClientKind``), the device, the Programmer and MVPD, the registration code, the username typed at an MVPD's page,
/// and any change to the customer's sign-in the route and answer say happened. One rule for every recorder: the
/// backend (which adds what its state knows, ``ExchangeContext``) and the proxy (which sees only the wire).
public struct ExchangeReading: Sendable {
    public var client: ClientKind?
    public var operation: String
    public var deviceID: String?
    /// When no device is named: who else the exchange belongs to (a registered app's client ID or software statement).
    public var caller: String?
    public var requestorID: String?
    public var mvpdID: String?
    public var registrationCode: String?
    public var passSFP: String?
    public var username: String?
    public var change: ServerChange?
    /// A client ID the answer issued (dynamic client registration): later calls with it are the same app's.
    public var issuedClientID: String?
    /// The device a registration code the answer issued belongs to.
    public var issuedCode: (code: String, deviceID: String)?

    /// Form fields of MVPD login pages that hold the username (the password fields are never read).
    static let usernameFields = ["j_username", "IDToken1", "username", "user", "login_name"]

    /// Reads `request` and `response`; `nil` for what is not a customer's exchange (static logos, CORS preflights, the
    /// admin pages' reads).
    public init?(_ request: Request, _ response: Response) {
        var request = request
        request.readLog = nil  // the recorder's reads are not the route's
        let path = request.path
        guard request.method != "OPTIONS", !path.hasPathPrefix("/logos/") else { return nil }
        if path.hasPathPrefix("/admin/") {
            guard request.method != "GET" else { return nil }
            operation = "admin " + path.dropFirst("/admin/".count)
        } else {
            operation = Self.operation(path)
        }
        client = Self.client(of: request)
        requestorID = Self.nonEmpty(request.parameter("requestor") ?? request.parameter("requestor_id"))
            ?? Self.requestorInPath(path)
        mvpdID = Self.nonEmpty(request.parameter("mso_id")) ?? Self.segment(after: "/mvpd/", in: path)
        registrationCode = Self.nonEmpty(request.parameter("reg_code") ?? request.parameter("code")) ?? Self.regcodeInPath(path)
        deviceID = Self.nonEmpty(request.parameter("deviceId") ?? request.parameter("device_id"))
            ?? Self.nonEmpty(request.header(WebHeader.deviceID.rawValue))
        if let sfp = Self.nonEmpty(request.header(WebHeader.serverFingerprint.rawValue) ?? request.cookies[WebHeader.serverFingerprint.rawValue]) {
            passSFP = sfp.count > 16 ? String(sfp.prefix(12)) + "…" : sfp
        }
        if request.method == "POST", path.hasPathPrefix("/mvpd/") {
            username = Self.usernameFields.lazy.compactMap { Self.nonEmpty(request.parameter($0)) }.first
        }
        // Answers that name what the request did not: a new registration code, a newly registered browser.
        // Parsed only where an answer names something new (a code, a browser, a client): not on the hot paths.
        if response.status.code < 300, Self.answersName(path, request.method),
            let json = try? JSONSerialization.jsonObject(with: response.bodyData) as? [String: Any]
        {
            registrationCode = registrationCode ?? (json["code"] as? String).flatMap(Self.nonEmpty)
            deviceID = deviceID ?? (json["deviceId"] as? String).flatMap(Self.nonEmpty)
            if path.hasPathPrefix("/reggie/v1/"), request.method == "POST", let code = (json["code"] as? String).flatMap(Self.nonEmpty) {
                change = .registrationCodeIssued
                let info = json["info"] as? [String: Any]
                if let device = (info?["deviceId"] as? String).flatMap(Self.nonEmpty) ?? deviceID { issuedCode = (code, device) }
            }
            if path == "/o/client/register" { issuedClientID = (json["client_id"] as? String).flatMap(Self.nonEmpty) }
        }
        if path.hasPathPrefix("/api/v2/") { readV2(request, response) }
        caller = Self.softwareStatement(request) ?? Self.nonEmpty(request.parameter("client_id"))
        if change == nil { change = Self.change(path, request.method, response) }
    }

    /// REST API v2: the device of `AP-Device-Identifier`, the service provider, MVPD and code of the path
    /// (`/api/v2/{sp}/decisions/authorize/{mvpd}`, `…/sessions/{code}`, `/api/v2/authenticate/{sp}/{code}`), and the
    /// code a new authentication session's answer issues for its device.
    mutating func readV2(_ request: Request, _ response: Response) {
        let parts = request.path.split(separator: "/").dropFirst(2).map(String.init)  // after "api", "v2"
        deviceID = deviceID ?? request.header(V2.deviceIdentifierHeader).flatMap(V2.deviceIdentifier)
        guard let first = parts.first else { return }
        switch first {
        case "authenticate", "sessions":  // /api/v2/authenticate/{sp}/{code}, the samples' /api/v2/sessions/{sp}/{code}
            requestorID = requestorID ?? parts.dropFirst().first
            registrationCode = registrationCode ?? parts.dropFirst(2).first
            return
        default: requestorID = requestorID ?? first
        }
        let rest = Array(parts.dropFirst())
        switch rest.first {
        case "sessions":
            registrationCode = registrationCode ?? rest.dropFirst().first
            mvpdID = mvpdID ?? Self.nonEmpty(request.parameter("mvpd"))
            if request.method == "POST", rest.count == 1, response.status.code < 300,
                let json = try? JSONSerialization.jsonObject(with: response.bodyData) as? [String: Any],
                let code = (json["code"] as? String).flatMap(Self.nonEmpty)
            {
                registrationCode = code
                change = .registrationCodeIssued
                if let deviceID { issuedCode = (code, deviceID) }
            }
        case "profiles":
            if rest.count >= 3, rest[1] == "code" { registrationCode = registrationCode ?? rest[2] }
            else if rest.count == 2 { mvpdID = mvpdID ?? rest[1] }
        case "decisions": mvpdID = mvpdID ?? rest.dropFirst(2).first
        case "logout":
            mvpdID = mvpdID ?? rest.dropFirst().first
            if response.status.code < 300, ByteSearch.contains(Self.v2LogoutMarker, in: response.bodyData) { change = .loggedOut }
        default: break
        }
    }

    static let v2LogoutMarker = Array("\"actionName\":\"logout\"".utf8)

    // MARK: - Reading the request

    /// Whether the answer to `method path` names what its request did not (a registration code, a registered
    /// browser's device ID, a client ID).
    static func answersName(_ path: String, _ method: String) -> Bool {
        method == "POST" && (path.hasPathPrefix("/reggie/v1/") || path.hasPathPrefix("/indiv/") || path == "/o/client/register")
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    /// `text` unless it is missing or empty.
    public static func nonEmptyText(_ text: String?) -> String? { nonEmpty(text) }

    /// The protocol, from the path and the headers only the web variant sends; `nil` for pages any client's user
    /// visits (MVPD sign-in, SAML consumer, activation): those take the kind their device was seen with.
    static func client(of request: Request) -> ClientKind? {
        let path = request.path
        if path.hasPathPrefix("/api/v2/") { return .restV2 }
        if path.hasPathPrefix("/api/v1/") || path.hasPathPrefix("/reggie/v1/") { return .restV1 }
        if path.hasPathPrefix("/indiv/") { return .web }
        if path.hasPathPrefix("/o/client/") { return .restV1 }  // dynamic client registration: REST clients' first step
        guard path.hasPathPrefix("/adobe-services") else { return nil }
        if request.header(WebHeader.serverFingerprint.rawValue) != nil || request.header(WebHeader.deviceID.rawValue) != nil
            || request.header(WebHeader.user.rawValue) != nil || request.parameter("reg_code") != nil
            || request.cookies[WebHeader.serverFingerprint.rawValue] != nil
        {
            return .web
        }
        switch (request.parameter("client_type") ?? request.parameter("device_type") ?? "").lowercased() {
        case "tvos", "appletv", "tv": return .tvos
        case "ios", "iphone", "ipad", "mobile": return .ios
        default: return path.hasPathPrefix("/adobe-services/authenticate/saml") ? nil : .ios
        }
    }

    /// The operation in the protocol's words: the path's last meaningful part (`REST v1 authorize`, `web session`).
    static func operation(_ path: String) -> String {
        let parts = path.split(separator: "/").map(String.init)
        func tail(_ prefixCount: Int) -> String { parts.dropFirst(prefixCount).prefix(1).joined() }
        switch parts.first {
        case "api": return "REST \(parts.dropFirst().first ?? "") \(tail(2))"
        case "reggie": return "REST v1 registration code"
        case "adobe-services": return "adobe-services \(parts.last == "adobe-services" || parts.last == "1.0" ? "" : parts.last ?? "")"
        case "indiv": return "web device registration"
        case "mvpd": return "MVPD page \(parts.dropFirst(2).joined(separator: "/"))"
        case "sp": return "SAML assertion consumer"
        case "activate": return "second-screen activation"
        case "o": return "client registration \(parts.last ?? "")"
        case "verify": return "media token verifier"
        default: return path
        }
    }

    static func segment(after prefix: String, in path: String) -> String? {
        guard path.hasPrefix(prefix) else { return nil }
        return nonEmpty(path.dropFirst(prefix.count).split(separator: "/").first.map(String.init))
    }

    /// `/reggie/v1/{requestor}/…`, `/api/v1/config/{requestor}`, `/adobe-services/config/{requestor}`.
    static func requestorInPath(_ path: String) -> String? {
        segment(after: "/reggie/v1/", in: path) ?? segment(after: "/api/v1/config/", in: path)
            ?? segment(after: "/adobe-services/config/", in: path) ?? segment(after: "/adobe-services/1.0/config/", in: path)
    }

    /// `/reggie/v1/{requestor}/regcode/{code}`.
    static func regcodeInPath(_ path: String) -> String? {
        let parts = path.split(separator: "/")
        guard parts.count >= 5, parts[0] == "reggie", parts[3] == "regcode" else { return nil }
        return String(parts[4])
    }

    static func softwareStatement(_ request: Request) -> String? {
        guard request.path == "/o/client/register",
            let json = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
            let statement = json["software_statement"] as? String, !statement.isEmpty
        else { return nil }
        return String(statement.prefix(64))
    }

    /// A change to the sign-in that the route and its answer say happened.
    static func change(_ path: String, _ method: String, _ response: Response) -> ServerChange? {
        let status = response.status.code
        if path.hasSuffix("/logout"), status < 300 || status == 302 { return path.hasPathPrefix("/mvpd/") ? nil : .loggedOut }
        if path.hasPathPrefix("/sp/saml/") || path.hasPathPrefix("/adobe-services/oauth2") || path == "/activate/done" {
            return status < 400 ? .signedIn : nil
        }
        return nil
    }
}

/// What a recorder's own service knows beyond the wire (the backend: its logins in progress, registration codes,
/// signed `pass_sfp` values and sign-ins). A proxy has none.
public protocol ExchangeContext: Sendable {
    /// Fills in what `reading` lacks from the service's state (the device of a code, a login, a `pass_sfp`, a user).
    func complete(_ reading: inout ExchangeReading, _ request: Request)
    /// The sign-in the exchange concerns, when the service knows it.
    func signIn(device: String, requestor: String?) -> SignInFacts?
    /// The sign-ins an admin request just ended (a revocation): one event each, in its device's session.
    func revoked(by request: Request) -> [SignInFacts]
}

/// A sign-in as a recorder shows it.
public struct SignInFacts: Sendable {
    public var userID: String
    public var username: String
    public var deviceID: String
    public var requestorID: String
    public var mvpdID: String
    /// The token in words (`authN token of alice at Cablevision for REF30, …: valid`).
    public var token: String

    public init(userID: String, username: String, deviceID: String, requestorID: String, mvpdID: String, token: String) {
        self.userID = userID
        self.username = username
        self.deviceID = deviceID
        self.requestorID = requestorID
        self.mvpdID = mvpdID
        self.token = token
    }
}
