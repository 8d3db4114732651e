import Foundation
import MicroHTTP
import PassProtocol

/// Dynamic client registration (spec §5.3): a software statement buys a client ID and secret, which buy
/// bearer access tokens for the REST API. Errors are OAuth-style `400 {"error": "...", "error_description": "..."}`.
enum ClientRegistrationRoutes {
    static let accessTokenTTL = 21600

    static func register(in router: inout Router, service: BackendService) {
        router.post("/o/client/register") { request in registerClient(request, service) }
        router.post("/o/client/token") { request in issueToken(request, service) }
    }

    struct RegistrationBody: Decodable {
        var software_statement: String?
        var redirect_uri: String?
    }

    static func registerClient(_ request: Request, _ service: BackendService) -> Response {
        let body: RegistrationBody
        if (request.header("Content-Type") ?? "").contains("json") {
            guard let decoded = try? JSONDecoder().decode(RegistrationBody.self, from: request.body) else {
                return oauthError("invalid_request", "The body is not a JSON object with software_statement.")
            }
            body = decoded
        } else {
            body = RegistrationBody(
                software_statement: request.parameter("software_statement"), redirect_uri: request.parameter("redirect_uri"))
        }
        guard let statement = body.software_statement, !statement.isEmpty else {
            return oauthError("invalid_request", "software_statement is required.")
        }
        guard let app = service.configuration.apps.first(where: { $0.softwareStatement == statement }) else {
            return oauthError("invalid_software_statement", "No registered app has this software statement.")
        }
        if service.state.withLock({ $0.revokedStatements.contains(statement) }) {
            return oauthError("unapproved_software_statement", "This software statement was revoked.")
        }
        if let redirect = body.redirect_uri, !redirect.isEmpty, !redirect.contains("://") {
            return oauthError("invalid_redirect_uri", "redirect_uri must be an absolute URL such as adbe.xyz://.")
        }
        let client = RegisteredClient(clientID: UUID().uuidString.lowercased(), secret: randomSecret(), app: app)
        service.state.withLock { $0.clients[client.clientID] = client }
        let answer: [String: JSONValue] = [
            "client_id": .string(client.clientID), "client_secret": .string(client.secret),
            "client_id_issued_at": .number(Double(EpochMilliseconds.from(service.now()))),
            "redirect_uris": .array(body.redirect_uri.map { [.string($0)] } ?? []),
            "grant_types": .array([.string("client_credentials")]), "scopes": .array(app.grantedScopes.map(JSONValue.string)),
        ]
        return .json(answer, status: .created)
    }

    static func issueToken(_ request: Request, _ service: BackendService) -> Response {
        guard let grant = request.parameter("grant_type"), !grant.isEmpty,
            let clientID = request.parameter("client_id"), let secret = request.parameter("client_secret")
        else { return oauthError("invalid_request", "grant_type, client_id and client_secret are required (form body).") }
        guard grant == "client_credentials" else {
            return oauthError("unsupported_grant_type", "Only grant_type=client_credentials is supported.")
        }
        guard let client = service.state.withLock({ $0.clients[clientID] }), client.secret == secret else {
            return oauthError("invalid_client", "Unknown client_id or wrong client_secret.")
        }
        if let statement = client.app.softwareStatement, service.state.withLock({ $0.revokedStatements.contains(statement) }) {
            return oauthError("unauthorized_client", "The client's software statement was revoked.")
        }
        let now = service.now()
        let token = randomSecret()
        service.state.withLock {
            $0.accessTokens[token] = (client.clientID, now.addingTimeInterval(TimeInterval(accessTokenTTL)))
        }
        let answer: [String: JSONValue] = [
            "id": .string(UUID().uuidString.lowercased()), "access_token": .string(token),
            "created_at": .number(Double(EpochMilliseconds.from(now))), "expires_in": .number(Double(accessTokenTTL)),
            "token_type": .string("bearer"),
        ]
        return .json(answer, status: .created)
    }

    static func oauthError(_ error: String, _ description: String) -> Response {
        .json(["error": error, "error_description": description], status: .badRequest)
    }

    static func randomSecret() -> String {
        (0..<4).map { _ in UUID().uuidString.replacingOccurrences(of: "-", with: "") }.joined().lowercased()
    }
}
