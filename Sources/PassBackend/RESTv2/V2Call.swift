import Crypto
import Foundation
import MicroHTTP
import PassProtocol

/// One REST API v2 call (docs/rest-api-v2.md §2): the service provider of its path, the registered app its bearer
/// token names (DCR with the `api:client:v2` scope), and the device of its `AP-Device-Identifier`. Every refusal is
/// an ``EnhancedError`` with the documented code.
struct V2Call {
    let request: Request
    let service: BackendService
    let serviceProvider: String
    let client: RESTClient

    /// The scope a v2 caller's app must be registered with (Config/…: an app's `scopes`).
    static let scope = "api:client:v2"

    init(_ request: Request, _ service: BackendService) throws(EnhancedError) {
        self.request = request
        self.service = service
        let serviceProvider = request.pathParameters["serviceProvider"] ?? ""
        // The access token first: without one nothing else is looked at (401 before any other answer).
        guard let header = request.header("Authorization"), header.lowercased().hasPrefix("bearer ") else {
            throw EnhancedError(.invalidAccessTokenClientApplication,
                details: "REST API v2 wants Authorization: Bearer <access token from /o/client/token>.")
        }
        let client: RESTClient
        do { client = try service.authenticateClient(request) } catch {
            throw EnhancedError(.invalidAccessTokenClientApplication, details: error.details)
        }
        guard service.programmer(serviceProvider) != nil else { throw EnhancedError(.invalidParameterServiceProvider) }
        guard client.app.grantedScopes.contains(Self.scope) else {
            throw EnhancedError(.invalidAccessTokenClientApplication,
                details: "The app \"\(client.app.name)\" is not registered for REST API v2 (scope \(Self.scope)).")
        }
        guard client.requestorID == serviceProvider else {
            throw EnhancedError(.invalidAccessTokenServiceProvider,
                details: "The access token belongs to an app of \(client.requestorID), not \(serviceProvider).")
        }
        self.serviceProvider = serviceProvider
        self.client = client
    }

    /// The device of `AP-Device-Identifier: fingerprint <Base64>`: the decoded identifier.
    var deviceID: String {
        get throws(EnhancedError) {
            guard let header = request.header(V2.deviceIdentifierHeader) else {
                throw EnhancedError(.invalidHeaderDeviceIdentifier, details: "The AP-Device-Identifier header is missing.")
            }
            return try Self.deviceID(header)
        }
    }

    static func deviceID(_ header: String) throws(EnhancedError) -> String {
        guard let id = V2.deviceIdentifier(header) else {
            throw EnhancedError(.invalidHeaderDeviceIdentifier,
                details: "Write it as AP-Device-Identifier: fingerprint <Base64 of the device identifier (UTF-8, at most 768 bytes)>.")
        }
        return id
    }

    /// `X-Device-Info` when sent: Base64 of a JSON object (the vendor's own sample is not valid JSON, so a Base64 value
    /// whose JSON does not parse is kept unread, not refused).
    var deviceInfo: DeviceInfo? {
        get throws(EnhancedError) {
            guard let header = request.header("X-Device-Info"), !header.isEmpty else { return nil }
            guard header.utf8.count <= 16_384, let data = Data(base64Encoded: header) else {
                throw EnhancedError(.invalidHeaderDeviceInfo, details: "X-Device-Info is not Base64.")
            }
            return try? JSONDecoder().decode(DeviceInfo.self, from: data)
        }
    }

    /// The MVPD of the path: configured (else `invalid_parameter_mvpd`) and integrated with the service provider (else
    /// `invalid_integration`).
    func mvpd(_ name: String = "mvpd") throws(EnhancedError) -> MVPD {
        guard let id = request.pathParameters[name] ?? request.parameter(name), let mvpd = service.mvpd(id) else {
            throw EnhancedError(.invalidParameterMVPD)
        }
        guard service.integrates(serviceProvider, mvpd.id) else { throw EnhancedError(.invalidIntegration) }
        return mvpd
    }

    /// The degradation rule applied to `mvpd` for this service provider, if any.
    func degradation(_ mvpd: MVPD) -> Degradation.Rule? {
        service.faults.degradation(requestor: serviceProvider, mvpd: mvpd.id)
    }

    /// The profile degraded access stands in with (AuthNAll): issued by Adobe, its user ID the vendor's degradation
    /// prefix and a stable digest of the device.
    func degradedProfile(deviceID: String) -> V2.Profile {
        let now = service.now()
        let digest = SHA256.hash(data: Data((serviceProvider + "|" + deviceID).utf8)).prefix(8).hexString
        return V2.Profile(
            notBefore: EpochMilliseconds.from(now), notAfter: EpochMilliseconds.from(now.addingTimeInterval(3600)), issuer: "Adobe",
            type: "degraded", attributes: ["userID": V2.Attribute(value: "95cf93bcd183214a" + digest)])
    }

    /// The signed-in session of `deviceID` with this service provider, if any, live or not (callers judge). A sign-in
    /// made through v2 is its DCR client's alone; one made through a legacy protocol is the device's.
    func session(deviceID: String) -> AuthSession? {
        guard let session = service.state.withLock({ $0.session(serviceProvider, deviceID) }) else { return nil }
        if let owner = session.clientID, owner != client.clientID { return nil }
        return session
    }

    /// The single sign-on identity this call carries, if any.
    var ssoIdentity: V2SSOIdentity? { V2SSOIdentity(request, now: service.now()) }

    /// The live sign-in another app made with this call's single sign-on identity, for an MVPD this service provider
    /// integrates.
    func ssoSession() -> (session: AuthSession, identity: V2SSOIdentity)? {
        guard let identity = ssoIdentity, let session = service.state.withLock({ $0.v2SSO[identity.key] }), !session.revoked,
            session.expires > service.now(), service.integrates(serviceProvider, session.mvpdID)
        else { return nil }
        return (session, identity)
    }

    /// The live profile of `deviceID` at `mvpd` (its own, else the single sign-on identity's), or the documented
    /// refusal.
    func liveSession(deviceID: String, mvpd: MVPD) throws(EnhancedError) -> AuthSession {
        if session(deviceID: deviceID).map({ $0.mvpdID != mvpd.id || $0.revoked || $0.expires <= service.now() }) ?? true,
            let sso = ssoSession(), sso.session.mvpdID == mvpd.id
        {
            return sso.session
        }
        guard let session = session(deviceID: deviceID), session.mvpdID == mvpd.id else {
            throw EnhancedError(.authenticatedProfileMissing, details: "No sign-in with \(mvpd.id) on this device.")
        }
        if session.revoked { throw EnhancedError(.authenticatedProfileInvalidated, details: TokenRejection.sessionRevoked.reason) }
        guard session.expires > service.now() else {
            throw EnhancedError(.authenticatedProfileExpired, details: "The profile expired at \(TokenDate.format(session.expires)).")
        }
        return session
    }

    /// A decisions answer, written by ``V2/Decisions/jsonBytes()`` (the hot path of v2).
    static func decisions(_ answer: V2.Decisions) -> Response {
        Response(status: .ok, headers: [("Content-Type", "application/json;charset=UTF-8")], body: .data(Data(answer.jsonBytes())))
    }

    /// The JSON answer.
    static func json<T: Encodable>(_ value: T, status: HTTPStatus = .ok) -> Response {
        var response = Response.json(value, status: status)
        response.headers.removeAll { $0.name.equalsIgnoringASCIICase("Content-Type") }
        response.headers.append(("Content-Type", "application/json;charset=UTF-8"))
        return response
    }
}

extension EnhancedError {
    /// The top-level error answer: the error's fields are the body, its status the answer's.
    var response: Response { V2Call.json(self, status: HTTPStatus(status)) }
}
