import Foundation
import MicroHTTP
import PassProtocol

/// `/reggie/v1/{requestor}/regcode`: create, read and free registration codes (spec §5.4.3 #1–3). Parameters come
/// from the form body (KODI-AP) or the query string with an empty body (KODI-ESPN).
enum RegcodeRoutes {
    static func register(in router: inout Router, service: BackendService) {
        router.post("/reggie/v1/{requestor}/regcode") { request in try create(request, service) }
        router.get("/reggie/v1/{requestor}/regcode/{code}") { request in try read(request, service) }
        router.delete("/reggie/v1/{requestor}/regcode/{code}") { request in try delete(request, service) }
    }

    static func create(_ request: Request, _ service: BackendService) throws -> Response {
        let call = try RESTCall(request, service, pathRequestor: request.pathParameters["requestor"])
        let deviceID = try call.deviceID
        let ttlText = RESTCall.nonEmpty(request.parameter("ttl"))
        let ttl = try ttlText.map { text throws(RESTError) -> Int in
            guard let ttl = Int(text), ttl > 0 else {
                throw RESTError(status: 400, message: "Bad Request", details: "ttl must be a positive number of seconds, not \"\(text)\".")
            }
            guard ttl <= BackendService.maximumRegcodeTTL else {
                throw RESTError(status: 400, message: "Bad Request",
                    details: "ttl \(ttl) is longer than the maximum of \(BackendService.maximumRegcodeTTL) s.")
            }
            return ttl
        } ?? service.configuration.tokens.regcodeTTL
        let mvpdID = RESTCall.nonEmpty(request.parameter("mvpd"))
        if let mvpdID, !service.integrates(call.requestorID, mvpdID) {
            throw RESTError(status: 400, message: "Bad Request", details: "The MVPD \(mvpdID) is not integrated with \(call.requestorID).")
        }
        var info = RegistrationInfo(deviceId: deviceID)
        info.deviceType = RESTCall.nonEmpty(request.parameter("deviceType"))
        info.deviceUser = RESTCall.nonEmpty(request.parameter("deviceUser"))
        info.appId = call.appID
        info.appVersion = RESTCall.nonEmpty(request.parameter("appVersion"))
        info.registrationURL = RESTCall.nonEmpty(request.parameter("registrationURL"))
        info.deviceInfo = RESTCall.nonEmpty(request.header("X-Device-Info") ?? request.parameter("device_info"))
        info.userAgent = request.header("User-Agent")
        info.originalUserAgent = request.header("User-Agent")
        info.authorizationType = call.client.method.rawValue
        info.sourceApplicationInformation = SourceApplicationInformation(
            id: call.client.app.publicKey, name: call.client.app.name, version: info.appVersion)
        let code = service.createRegcode(requestorID: call.requestorID, mvpdID: mvpdID, ttl: ttl, info: info)
        service.logger.info("regcode \(code.code) created for \(call.requestorID) on device \(deviceID)")
        return call.render(code, status: .created)
    }

    static func read(_ request: Request, _ service: BackendService) throws -> Response {
        let call = try RESTCall(request, service, pathRequestor: request.pathParameters["requestor"])
        let record = try live(request.pathParameters["code"] ?? "", requestorID: call.requestorID, service)
        return call.render(record.code)
    }

    static func delete(_ request: Request, _ service: BackendService) throws -> Response {
        let call = try RESTCall(request, service, pathRequestor: request.pathParameters["requestor"])
        let code = request.pathParameters["code"] ?? ""
        guard let record = service.regcode(code), record.code.requestor == call.requestorID else { throw notFound(code) }
        service.deleteRegcode(record.code.code)
        return .empty()
    }

    /// A code of this requestor that has not expired: 404 when unknown, 410 when expired.
    static func live(_ code: String, requestorID: String, _ service: BackendService) throws(RESTError) -> RegistrationRecord {
        guard let record = service.regcode(code), record.code.requestor == requestorID else { throw notFound(code) }
        guard record.expires > service.now() else {
            throw RESTError(status: 410, message: "Gone", details: "The registration code \(record.code.code) has expired.")
        }
        return record
    }

    static func notFound(_ code: String) -> RESTError {
        RESTError(status: 404, message: "Not Found", details: "No registration code \(code.uppercased()) for this requestor.")
    }
}
