import Foundation
import PassProtocol

/// REST API v2 from the client side (docs/rest-api-v2.md §3, §7): dynamic client registration, configuration,
/// sessions, profiles, decisions, logout and partner single sign-on. Failures are ``SDKClient/Failure`` values, so
/// the engine judges both protocols the same way: a top-level enhanced error becomes `.status(status, details:
/// details ?? message, code: code)`, an OAuth error of the registration calls `.status(status, details:
/// error_description, code: error)`.
///
/// Every v2 call sends `Authorization: Bearer` with the access token of ``registration``, `AP-Device-Identifier:
/// fingerprint <Base64 of the device ID>` and `Accept: application/json`. A `401` makes ``registration`` fetch a new
/// access token, and the call is sent once more (the vendor's checklist).
struct V2Client: ConfigurationSource {
    typealias Failure = SDKClient.Failure

    /// The service provider as configured (`…/adobe-services`).
    let base: URL
    /// The Programmer (the `{serviceProvider}` of every path).
    var requestorID: String
    let transport: HTTPTransport
    /// DCR state, shared by every client of the engine.
    let registration: V2Registration
    /// Sent as `AP-Device-Identifier`.
    let deviceID: String
    /// `AP-Partner-Framework-Status`, for the calls of an `appleSSO` profile and partner single sign-on.
    var partnerStatus: String?
    /// Sends each request from a task of its own, so cancelling the caller (the tvOS poll task) never cancels a
    /// URLSession task in flight (swift-corelibs-foundation #3296, as ``RESTClient``).
    var shielded = false

    /// The REST host (`api.auth…` for `sp.auth…`).
    var origin: URL { RESTClient.origin(of: base) }

    /// A URL of an answer (`url` of sessions and logouts) made absolute against ``origin``.
    func absolute(_ url: String) -> String {
        URL(string: url, relativeTo: origin)?.absoluteString ?? url
    }

    // MARK: - Dynamic client registration (rest-api-v2.md §7)

    /// `POST /o/client/register` with the software statement: the client's ID and secret.
    nonisolated(nonsending) func register(softwareStatement: String) async throws(Failure) -> (clientID: String, clientSecret: String) {
        struct Answer: Decodable {
            var client_id: String
            var client_secret: String
        }
        let body = (try? JSONEncoder().encode(["software_statement": softwareStatement])) ?? Data()
        let answer = try await plain { try await transport.post(url("/o/client/register"), json: body, headers: ["Accept": "application/json"]) }
        guard (200..<300).contains(answer.status) else { throw Self.failure(answer) }
        guard let decoded = try? JSONDecoder().decode(Answer.self, from: Data(answer.body.utf8)) else {
            throw .malformed("the registration answer has no client_id and client_secret")
        }
        return (decoded.client_id, decoded.client_secret)
    }

    /// `POST /o/client/token` (client credentials): an access token and how many seconds it lives.
    nonisolated(nonsending) func token(clientID: String, clientSecret: String) async throws(Failure) -> (accessToken: String, expiresIn: Int) {
        struct Answer: Decodable {
            var access_token: String
            var expires_in: Double?
        }
        let form = [("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", clientSecret)]
        let answer = try await plain { try await transport.post(url("/o/client/token"), form: form, headers: ["Accept": "application/json"]) }
        guard (200..<300).contains(answer.status) else { throw Self.failure(answer) }
        guard let decoded = try? JSONDecoder().decode(Answer.self, from: Data(answer.body.utf8)) else {
            throw .status(answer.status, details: "The token answer has no access_token.", code: V2Registration.noAccessToken)
        }
        return (decoded.access_token, Int(decoded.expires_in ?? 3600))
    }

    // MARK: - Configuration (§3.1)

    /// `GET /api/v2/{sp}/configuration`, after making sure of an access token (registering the app if needed).
    nonisolated(nonsending) func configuration(requestorID: String) async throws(Failure) -> RequestorConfiguration {
        var named = self
        named.requestorID = requestorID
        let client = named
        let answer = try await client.v2 { token in
            try await transport.get(client.url(client.path("configuration")), headers: client.headers(token))
        }
        guard answer.status == 200 else { throw Self.failure(answer) }
        guard let decoded = try? JSONDecoder().decode(V2.Configuration.self, from: Data(answer.body.utf8)) else {
            throw .malformed("the v2 configuration cannot be read")
        }
        return Self.requestorConfiguration(decoded)
    }

    /// The v2 configuration as the seeds' configuration: the MVPDs with their flags; TempPass MVPDs left out (FAQ
    /// `#configuration-phase-faq7` allows filtering; the seeds have no TempPass).
    static func requestorConfiguration(_ c: V2.Configuration) -> RequestorConfiguration {
        RequestorConfiguration(
            device: c.device, clientType: c.clientType, os: c.os, requestorID: c.requestor.id, requestorName: c.requestor.name,
            mvpds: c.requestor.mvpds.filter { $0.isTempPass != true }.map {
                MVPDInfo(
                    id: $0.id, displayName: $0.displayName, logoURL: $0.logoUrl, passiveAuthnEnabled: $0.passiveAuthnEnabled ?? false,
                    authPerAggregator: $0.authPerAggregator ?? false, enablePlatformServices: $0.enablePlatformServices ?? false,
                    requiresSVC: false, authenticationTTLSeconds: nil)
            })
    }

    // MARK: - Sessions (§3.2–3.5)

    /// `POST /api/v2/{sp}/sessions`: a new authentication session for `mvpd` ending at `redirectURL`.
    nonisolated(nonsending) func createSession(mvpd: String, redirectURL: String) async throws(Failure) -> V2.Session {
        let form = [("mvpd", mvpd), ("domainName", PassConstants.SP_URL_DOMAIN_NAME), ("redirectUrl", redirectURL)]
        let answer = try await v2 { token in try await transport.post(url(path("sessions")), form: form, headers: headers(token)) }
        guard answer.status == 200 || answer.status == 201 else { throw Self.failure(answer) }
        return try Self.decode(V2.Session.self, answer, "session")
    }

    /// `GET /api/v2/{sp}/sessions/{code}`: `true` while the session (its code) is live.
    nonisolated(nonsending) func sessionIsLive(code: String) async throws(Failure) -> Bool {
        let answer = try await v2 { token in try await transport.get(url(path("sessions", code)), headers: headers(token)) }
        if answer.status == 200 { return true }
        let failure = Self.failure(answer)
        if case .status(_, _, let code?) = failure, code == "invalid_authentication_session" || code == "invalid_parameter_code" { return false }
        throw failure
    }

    // MARK: - Profiles (§3.6–3.9)

    /// `GET /api/v2/{sp}/profiles`: every profile of this device and client (empty: nobody signed in).
    nonisolated(nonsending) func profiles() async throws(Failure) -> [String: V2.Profile] {
        try await readProfiles(path("profiles"))
    }

    /// `GET /api/v2/{sp}/profiles/{mvpd}`.
    nonisolated(nonsending) func profile(mvpd: String) async throws(Failure) -> [String: V2.Profile] {
        try await readProfiles(path("profiles", mvpd))
    }

    /// `GET /api/v2/{sp}/profiles/code/{code}`: the profile the sign-in with `code` made (empty: not yet).
    nonisolated(nonsending) func profile(code: String) async throws(Failure) -> [String: V2.Profile] {
        try await readProfiles(path("profiles", "code", code))
    }

    private nonisolated(nonsending) func readProfiles(_ path: String) async throws(Failure) -> [String: V2.Profile] {
        let answer = try await v2 { token in try await transport.get(url(path), headers: headers(token)) }
        guard answer.status == 200 || answer.status == 201 else { throw Self.failure(answer) }
        return try Self.decode(LenientProfiles.self, answer, "profiles").profiles ?? [:]
    }

    // MARK: - Decisions (§3.10–3.11)

    /// One decision as the SDK reads it: every field but the resource optional, the error lenient.
    struct Decision: Decodable, Sendable, Equatable {
        var resource: String
        var mvpd: String?
        var source: String?
        var authorized: Bool?
        var token: Token?
        var error: Problem?
        var notAfter: Int64?

        struct Token: Decodable, Sendable, Equatable {
            var notAfter: Int64?
            var serializedToken: String
        }
    }

    /// `POST /api/v2/{sp}/decisions/authorize/{mvpd}` with `{"resources": [...]}`.
    nonisolated(nonsending) func authorize(mvpd: String, resources: [String]) async throws(Failure) -> [Decision] {
        try await decide("authorize", mvpd: mvpd, resources: resources)
    }

    /// `POST /api/v2/{sp}/decisions/preauthorize/{mvpd}`.
    nonisolated(nonsending) func preauthorize(mvpd: String, resources: [String]) async throws(Failure) -> [Decision] {
        try await decide("preauthorize", mvpd: mvpd, resources: resources)
    }

    private nonisolated(nonsending) func decide(_ kind: String, mvpd: String, resources: [String]) async throws(Failure) -> [Decision] {
        struct Answer: Decodable { var decisions: [Decision] }
        let body = (try? JSONEncoder().encode(["resources": resources])) ?? Data()
        let answer = try await v2 { token in
            try await transport.post(url(path("decisions", kind, mvpd)), json: body, headers: headers(token))
        }
        guard answer.status == 200 else { throw Self.failure(answer) }
        return try Self.decode(Answer.self, answer, "decisions").decisions
    }

    // MARK: - Logout (§3.12)

    /// `GET /api/v2/{sp}/logout/{mvpd}?redirectUrl=`: what is left to do to end the sign-in at `mvpd`.
    nonisolated(nonsending) func logout(mvpd: String, redirectURL: String) async throws(Failure) -> V2.Logout {
        let answer = try await v2 { token in
            try await transport.get(url(path("logout", mvpd)), query: [("redirectUrl", redirectURL)], headers: headers(token))
        }
        guard answer.status == 200 else { throw Self.failure(answer) }
        let logouts = try Self.decode(V2.Logouts.self, answer, "logout")
        guard let logout = logouts.logouts[mvpd] ?? logouts.logouts.values.first else { throw .malformed("the logout answer names no MVPD") }
        return logout
    }

    // MARK: - Partner single sign-on (§3.13–3.14)

    /// `POST /api/v2/{sp}/sessions/sso/Apple` with ``partnerStatus``: the partner's request, or a fall-back session.
    nonisolated(nonsending) func partnerSession(redirectURL: String) async throws(Failure) -> V2.PartnerSession {
        let form = [("domainName", PassConstants.SP_URL_DOMAIN_NAME), ("redirectUrl", redirectURL)]
        let answer = try await v2 { token in
            try await transport.post(url(path("sessions", "sso", "Apple")), form: form, headers: headers(token))
        }
        guard answer.status == 200 || answer.status == 201 else { throw Self.failure(answer) }
        return try Self.decode(V2.PartnerSession.self, answer, "partner session")
    }

    /// `POST /api/v2/{sp}/profiles/sso/Apple` with the platform's SAML response: the `appleSSO` profile.
    nonisolated(nonsending) func partnerProfile(samlResponse: String) async throws(Failure) -> [String: V2.Profile] {
        let answer = try await v2 { token in
            try await transport.post(url(path("profiles", "sso", "Apple")), form: [("SAMLResponse", samlResponse)], headers: headers(token))
        }
        guard answer.status == 200 || answer.status == 201 else { throw Self.failure(answer) }
        return try Self.decode(LenientProfiles.self, answer, "profiles").profiles ?? [:]
    }

    // MARK: - Helpers

    /// An enhanced error (top-level or a decision's), or an OAuth error: every field optional.
    struct Problem: Decodable, Sendable, Equatable {
        var status: Int?
        var code: String?
        var message: String?
        var details: String?
        var action: String?
        var error: String?
        var error_description: String?

        /// The words for the app: the partner's own (`details`), else the vendor's message.
        var words: String? { details ?? message ?? error_description }
    }

    struct LenientProfiles: Decodable { var profiles: [String: V2.Profile]? }

    func path(_ segments: String...) -> String {
        "/api/v2/" + ([requestorID] + segments).map(HTTPTransport.escape).joined(separator: "/")
    }

    func url(_ path: String) -> URL { URL(string: origin.absoluteString + path)! }

    func headers(_ token: String) -> [String: String] {
        var headers = [
            "Authorization": "Bearer " + token, "Accept": "application/json",
            V2.deviceIdentifierHeader: "fingerprint " + Data(deviceID.utf8).base64EncodedString(),
        ]
        if let partnerStatus { headers["AP-Partner-Framework-Status"] = partnerStatus }
        return headers
    }

    /// A v2 call with the access token; after a `401`, once more with a new one.
    private nonisolated(nonsending) func v2(_ send: @escaping @Sendable (String) async throws -> HTTPTransport.Answer)
        async throws(Failure) -> HTTPTransport.Answer
    {
        let token = try await registration.accessToken(using: self)
        let answer = try await plain { try await send(token) }
        guard answer.status == 401 else { return answer }
        let renewed = try await registration.renewAccessToken(after: token, using: self)
        return try await plain { try await send(renewed) }
    }

    /// One request; no answer becomes `.unreachable`.
    private nonisolated(nonsending) func plain(_ send: @escaping @Sendable () async throws -> HTTPTransport.Answer)
        async throws(Failure) -> HTTPTransport.Answer
    {
        if shielded {
            let result = await Task { () -> Result<HTTPTransport.Answer, Failure> in
                do { return .success(try await send()) } catch { return .failure(Self.unreachable(error)) }
            }.value
            return try result.get()
        }
        do { return try await send() } catch { throw Self.unreachable(error) }
    }

    private static func unreachable(_ error: any Error) -> Failure {
        .unreachable((error as? HTTPTransport.Unreachable)?.reason ?? "\(error)")
    }

    static func decode<T: Decodable>(_ type: T.Type, _ answer: HTTPTransport.Answer, _ what: String) throws(Failure) -> T {
        do { return try JSONDecoder().decode(T.self, from: Data(answer.body.utf8)) } catch {
            throw .malformed("the \(what) answer cannot be read: \(error)")
        }
    }

    /// An error answer: the enhanced error's (or OAuth error's) code and words.
    static func failure(_ answer: HTTPTransport.Answer) -> Failure {
        let problem = try? JSONDecoder().decode(Problem.self, from: Data(answer.body.utf8))
        return .status(answer.status, details: problem?.words, code: problem?.code ?? problem?.error)
    }
}
