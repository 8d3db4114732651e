import Foundation
import MicroHTTP
import PassProtocol

/// Controls for tests and demos, plus the media token verifier. Every change is a `POST` or `PUT` with a JSON body
/// (``AdminAccess`` refuses anything else, and foreign pages):
///
/// - `GET /admin/faults` — the faults in force; `PUT` replaces them (JSON ``FaultSettings``); `POST
///   /admin/faults/rules` adds one ``FaultRule``; `POST /admin/faults/reset` restores the configured faults.
/// - `GET /admin/clock` — the backend's time; `POST /admin/clock` with `{"advanceSeconds": n}` or
///   `{"offsetSeconds": n}` moves it.
/// - `GET /admin/sessions` — live sessions; `GET /admin/signins` — every sign-in an authN token was issued for
///   (the last 1,000, ended ones too); `POST /admin/sessions/revoke` with optional `deviceId`/`requestor`
///   ends them on the server while devices keep their tokens.
/// - `GET /admin/regcodes/{code}` — a registration code's life: made, expires, activated, and every second-screen
///   attempt to use it; `GET /admin/activations` — the newest attempts for any code.
/// - `POST /admin/statements/revoke` with `{"softwareStatement": "…"}` revokes an app's registration.
/// - `POST|GET /verify` with `token` (raw or Base64) and optional `resource` — the media token verifier: valid
///   once, then `TOKEN_ALREADY_USED`.
enum AdminRoutes {
    struct ClockChange: Decodable {
        var advanceSeconds: Double?
        var offsetSeconds: Double?
    }

    struct SessionFilter: Decodable {
        var deviceId: String?
        var requestor: String?
    }

    struct StatementRevocation: Decodable {
        var softwareStatement: String
    }

    /// JSON with ISO 8601 dates, for answers people and other tools read.
    static func isoJSON(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return .json(data: try encoder.encode(value))
    }

    static func register(in router: inout Router, service: BackendService) {
        router.get("/admin/faults") { _ in .json(service.faults) }
        router.put("/admin/faults") { request in
            service.faults = try request.decodeJSON(FaultSettings.self)
            return .json(service.faults)
        }
        router.post("/admin/faults/rules") { request in
            let rule = try request.decodeJSON(FaultRule.self)
            // Counted and added under one lock: two additions at once cannot pass the cap together.
            let held = service.state.withLock { state -> Int? in
                guard state.faults.rules.count < AdminInputBounds.maxRules else { return state.faults.rules.count }
                state.faults.rules.append(rule)
                return nil
            }
            if let held { try AdminInputBounds.checkCount(held + 1, named: "rules", limit: AdminInputBounds.maxRules) }
            return .json(service.faults)
        }
        router.post("/admin/faults/reset") { _ in
            service.faults = service.configuration.faults
            return .json(service.faults)
        }
        router.get("/admin/clock") { _ in clockAnswer(service) }
        router.post("/admin/clock") { request in
            let change = try request.decodeJSON(ClockChange.self)
            let offset = (change.offsetSeconds ?? service.clock.offsetSeconds) + (change.advanceSeconds ?? 0)
            // Each field is in range; their sum (or the sum with the current offset) must be too.
            try BoundedInput.check(offset, named: "offsetSeconds + advanceSeconds", in: AdminInputBounds.clockOffsetRange)
            service.clock.offsetSeconds = offset
            return clockAnswer(service)
        }
        router.get("/admin/regcodes/{code}") { request in
            let code = request.pathParameters["code"] ?? ""
            guard let life = service.regcodeLife(code) else {
                throw HTTPError(.notFound, code: "unknown_code", message: "No registration code \(code.uppercased()) is known here "
                    + "(never made, or expired more than an hour ago).")
            }
            return try isoJSON(life)
        }
        router.get("/admin/activations") { request in
            let limit = try request.query("limit", as: Int.self, in: AdminInputBounds.activationsLimit, default: 100)
            return try isoJSON(["attempts": service.recentActivations(limit: limit)])
        }
        router.get("/admin/sessions") { _ in .json(service.sessions.sorted { $0.issued < $1.issued }) }
        router.get("/admin/signins") { _ in .json(service.signIns) }
        router.get("/admin/visitors") { _ in .json(service.visitorRecords) }
        router.post("/admin/sessions/revoke") { request in
            let filter = request.body.isEmpty ? SessionFilter() : try request.decodeJSON(SessionFilter.self)
            return .json(["revoked": service.revokeSessions(deviceID: filter.deviceId, requestorID: filter.requestor)])
        }
        router.post("/admin/statements/revoke") { request in
            let revocation = try request.decodeJSON(StatementRevocation.self)
            service.state.withLock { _ = $0.revokedStatements.insert(revocation.softwareStatement) }
            return .empty()
        }
        router.get("/verify") { request in try verify(request, service) }
        router.post("/verify") { request in try verify(request, service) }
    }

    static func clockAnswer(_ service: BackendService) -> Response {
        .json(["now": ISO8601DateFormatter().string(from: service.now()),
               "offsetSeconds": String(service.clock.offsetSeconds + Double(service.faults.clockOffsetSeconds))])
    }

    struct Verification: Encodable {
        var verdict: MediaTokenVerdict
        var valid: Bool
        var explanation: String
        var token: MediaToken?
        var expires: Date?
    }

    static func verify(_ request: Request, _ service: BackendService) throws -> Response {
        struct Body: Decodable { var token: String; var resource: String? }
        let body: Body
        if request.header("Content-Type")?.contains("json") == true {
            body = try request.decodeJSON(Body.self)
        } else {
            guard let token = request.parameter("token"), !token.isEmpty else {
                throw HTTPError(.badRequest, code: "missing_parameter", message: "The parameter token is required.")
            }
            body = Body(token: token, resource: request.parameter("resource"))
        }
        let (verdict, signed) = service.verifyMediaToken(body.token, resourceID: body.resource)
        let answer = Verification(
            verdict: verdict, valid: verdict == .validToken, explanation: verdict.explanation, token: signed?.body,
            expires: signed?.body.expires)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return .json(data: try encoder.encode(answer), status: verdict == .validToken ? .ok : .forbidden)
    }
}
