import Foundation
import MicroHTTP
import PassProtocol

/// One authenticated REST v1 call: its parameters, the calling app, and the session lookups every endpoint shares.
/// Every failure is a ``RESTError`` that ``PassBackend`` renders in the format the client asked for.
struct RESTCall {
    let request: Request
    let service: BackendService
    let client: RESTClient
    let requestorID: String

    /// Authenticates the caller and settles the requestor: the path's, the `requestor`/`requestor_id` parameter, or
    /// the credentials' (KODI-AP's checkauthn sends none).
    init(_ request: Request, _ service: BackendService, pathRequestor: String? = nil) throws(RESTError) {
        self.request = request
        self.service = service
        self.client = try service.authenticateClient(request)
        let named = pathRequestor ?? Self.nonEmpty(request.parameter("requestor") ?? request.parameter("requestor_id"))
        let requestorID = named ?? client.requestorID
        guard service.programmer(requestorID) != nil else {
            throw RESTError(status: 400, message: "Bad Request", details: "Unknown requestor \(requestorID).")
        }
        guard requestorID == client.requestorID else {
            throw RESTError(
                status: 403, message: "Forbidden",
                details: "The app \"\(client.app.name)\" is registered for requestor \(client.requestorID), not \(requestorID).")
        }
        self.requestorID = requestorID
    }

    /// A parameter that must be present and non-empty (400 otherwise).
    func required(_ name: String) throws(RESTError) -> String {
        guard let value = Self.nonEmpty(request.parameter(name)) else {
            throw RESTError(status: 400, message: "Bad Request", details: "The parameter \(name) is required.")
        }
        return value
    }

    var deviceID: String { get throws(RESTError) { try required("deviceId") } }

    /// REST v1 `appId`: a non-empty one scopes sessions to that app (no SSO).
    var appID: String? { Self.nonEmpty(request.parameter("appId")) }

    /// The resources named by `resource` (repeatable, comma-separated); 400 when none.
    var resources: [String] {
        get throws(RESTError) {
            let list = request.parameterAll("resource").flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !list.isEmpty else {
                throw RESTError(status: 400, message: "Bad Request", details: "The parameter resource is required.")
            }
            return list
        }
    }

    /// The signed-in session of a device, or the documented refusal when there is none usable: `412 User not
    /// authenticated` (authorize, tokens, metadata) or `403` (checkauthn).
    func authenticatedSession(deviceID: String, appID: String?, refusal: Int = 412) throws(RESTError) -> AuthSession {
        let details: String
        switch lookupSession(deviceID: deviceID, appID: appID) {
        case .valid(let session): return session
        case .missing: details = "No authentication for this device."
        case .expired(let when): details = "Authentication token expired at \(when)."
        case .revoked: details = TokenRejection.sessionRevoked.reason
        }
        let message = refusal == 403 ? "Authentication token expired" : "User not authenticated"
        throw RESTError(status: refusal, message: message, details: details)
    }

    enum SessionLookup {
        case valid(AuthSession), missing, expired(String), revoked
    }

    func lookupSession(deviceID: String, appID: String?) -> SessionLookup {
        guard let session = service.state.withLock({ $0.session(requestorID, deviceID, appID: appID) }) else { return .missing }
        if session.revoked { return .revoked }
        guard session.expires > service.now() else { return .expired(TokenDate.format(session.expires)) }
        return .valid(session)
    }

    func render<Payload: RESTPayload>(_ payload: Payload, status: HTTPStatus = .ok) -> Response {
        RESTFormat(request).render(payload, status: status)
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}
