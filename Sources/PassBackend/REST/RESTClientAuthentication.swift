import Foundation
import MicroHTTP
import PassProtocol

/// Who is calling the REST API: a registered app, proven by a DCR bearer token or the legacy HMAC header.
struct RESTClient: Sendable {
    enum Method: String, Sendable { case bearer = "OAUTH2", hmac = "HMAC" }
    var app: RegisteredApp
    var method: Method
    /// The requestor the credentials name (the app's, or the HMAC header's `requestor_id`).
    var requestorID: String
    /// The DCR client the bearer token was issued to (nil for the legacy HMAC header).
    var clientID: String? = nil
}

/// Checks the `Authorization` header of REST v1 calls (spec §5.4.2, §5.3): `Bearer <access_token>` from dynamic
/// client registration, or `<METHOD> requestor_id=…, nonce=…, …, signature=…` signed with the app's secret.
/// Every refusal is a 401 whose `details` says what was wrong.
extension BackendService {
    func authenticateClient(_ request: Request) throws(RESTError) -> RESTClient {
        guard let header = request.header("Authorization").map(Self.trimSpaces), !header.isEmpty else {
            throw Self.unauthorized("The Authorization header is missing: sign the request (legacy HMAC) or send a bearer token.")
        }
        if header.lowercased().hasPrefix("bearer ") {
            return try bearerClient(Self.trimSpaces(String(header.dropFirst(7))))
        }
        return try hmacClient(header, request: request)
    }

    private func bearerClient(_ token: String) throws(RESTError) -> RESTClient {
        let now = now()
        let found = state.withLock { state -> (RegisteredClient, Date)? in
            guard let access = state.accessTokens[token], let client = state.clients[access.clientID] else { return nil }
            return (client, access.expires)
        }
        guard let (client, expires) = found else {
            throw Self.unauthorized("The bearer token is unknown: get one from /o/client/token.")
        }
        guard expires > now else {
            throw Self.unauthorized("The bearer token expired at \(TokenDate.format(expires)); get a new one from /o/client/token.")
        }
        if let statement = client.app.softwareStatement, state.withLock({ $0.revokedStatements.contains(statement) }) {
            throw Self.unauthorized("The app's software statement was revoked (R400): register again with a new statement.")
        }
        return RESTClient(app: client.app, method: .bearer, requestorID: client.app.requestorID, clientID: client.clientID)
    }

    private func hmacClient(_ header: String, request: Request) throws(RESTError) -> RESTClient {
        let authorization: LegacyAuthorization
        do { authorization = try LegacyAuthorization.parse(header) } catch { throw Self.unauthorized(error.reason) }
        guard let app = configuration.apps.first(where: { $0.publicKey == authorization.publicKey }) else {
            throw Self.unauthorized("No registered app has the public key \"\(authorization.publicKey)\".")
        }
        guard authorization.requestorID == app.requestorID else {
            throw Self.unauthorized(
                "The app \"\(app.name)\" is registered for requestor \(app.requestorID), not \(authorization.requestorID).")
        }
        guard authorization.verifySignature(secret: app.secret) else {
            throw Self.unauthorized(
                "The signature does not match: sign everything before \", public_key=\" with HMAC-SHA1 and the app's secret.")
        }
        guard authorization.method.uppercased() == request.method.uppercased() else {
            throw Self.unauthorized("The header was signed for \(authorization.method), but the request is \(request.method).")
        }
        guard authorization.matchesPath(request.path) else {
            throw Self.unauthorized("The header was signed for request_uri \(authorization.requestURI), not \(request.path).")
        }
        let window = TimeInterval(configuration.tokens.requestFreshness)
        let now = now()
        guard authorization.isFresh(at: now, window: window) else {
            let skew = Int(EpochMilliseconds.date(authorization.requestTime).timeIntervalSince(now))
            throw Self.unauthorized(
                "request_time is \(skew) s away from the server's clock; at most \(Int(window)) s is accepted.")
        }
        let fresh = state.withLock { state -> Bool in
            state.prune(now: now)
            let key = "\(app.publicKey)|\(authorization.nonce)"
            guard state.nonces[key] == nil else { return false }
            state.nonces[key] = now.addingTimeInterval(window * 2)
            return true
        }
        guard fresh else { throw Self.unauthorized("The nonce \(authorization.nonce) was already used: send a new one each request.") }
        return RESTClient(app: app, method: .hmac, requestorID: authorization.requestorID)
    }

    /// Trims spaces and tabs (Foundation's `trimmingCharacters(in:)` is slow on Linux: ~15% of a REST request).
    static func trimSpaces(_ text: String) -> String {
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        let last = utf8.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })!
        return String(text[first...last])
    }

    static func unauthorized(_ details: String) -> RESTError {
        RESTError(status: 401, message: "Unauthorized", details: details)
    }
}
