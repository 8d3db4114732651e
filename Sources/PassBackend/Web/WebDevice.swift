import Foundation
import MicroHTTP
import PassProtocol

/// Which device a web-variant call is for (spec §5.2.7). Browser clients rarely send `device_id`; they name the device
/// by one of, in this order:
///
/// 1. `reg_code`: the registration code the sign-in was tied to (its device, scoped to its `appId`);
/// 2. `device_id`: as the native SDK does;
/// 3. the `pass_sfp` header `POST /indiv/devices` answered with;
/// 4. the `ap_21` header (the device ID in clear);
/// 5. the `pass_sfp` cookie the backend set at sign-in or on `session`.
///
/// Two of 1–4 that name different devices are refused (`400 device_mismatch`) rather than one silently winning.
struct WebDevice: Sendable, Equatable {
    /// Where the device came from (for messages and logs).
    enum Source: String, Sendable {
        case regcode = "reg_code", deviceID = "device_id", header = "pass_sfp header",
            apHeader = "ap_21 header", cookie = "pass_sfp cookie"
    }

    var deviceID: String
    var appID: String?
    var source: Source
    /// The registration code named, when the call named one.
    var regcode: RegistrationRecord?

    /// What to send when none of the ways to name a device was used.
    static let missingMessage =
        "Name the device: reg_code or device_id, or the ap_21 or pass_sfp header from POST /indiv/devices, or the pass_sfp cookie."

    /// The device the call names, `nil` when it names none.
    ///
    /// - Throws: ``HTTPError`` `400` for a `pass_sfp` this backend did not sign, a registration code that is unknown
    ///   or another Programmer's, or two names for different devices; `410` for an expired code.
    static func resolve(_ request: Request, requestorID: String, _ service: BackendService) throws -> WebDevice? {
        var named: [WebDevice] = []
        if let code = nonEmpty(request.parameter("reg_code")) {
            named.append(try fromRegcode(code, requestorID: requestorID, service))
        }
        if let deviceID = nonEmpty(request.parameter("device_id")) {
            named.append(WebDevice(deviceID: deviceID, appID: nil, source: .deviceID))
        }
        if let sfp = nonEmpty(request.header(WebHeader.serverFingerprint.rawValue)) {
            guard let parsed = ServerFingerprint.parse(sfp, key: service.serverFingerprintKey) else {
                throw HTTPError(
                    .badRequest, code: "invalid_pass_sfp",
                    message:
                        "The pass_sfp header is not one this backend issued: register the device again with POST /indiv/devices."
                )
            }
            named.append(WebDevice(deviceID: parsed.deviceID, appID: parsed.appID, source: .header))
        }
        if let deviceID = nonEmpty(request.header(WebHeader.deviceID.rawValue)) {
            named.append(WebDevice(deviceID: deviceID, appID: nil, source: .apHeader))
        }
        if let first = named.first {
            if let other = named.first(where: { $0.deviceID != first.deviceID }) {
                throw HTTPError(
                    .badRequest, code: "device_mismatch",
                    message: "The \(first.source.rawValue) and the \(other.source.rawValue) name different devices.")
            }
            return first
        }
        // A cookie that no longer verifies (another backend's, say) is ignored like a missing one: browsers keep
        // cookies the client never chose to send.
        if let cookie = nonEmpty(request.cookies[WebHeader.serverFingerprint.rawValue]),
            let parsed = ServerFingerprint.parse(cookie, key: service.serverFingerprintKey)
        {
            return WebDevice(deviceID: parsed.deviceID, appID: parsed.appID, source: .cookie)
        }
        return nil
    }

    /// Like ``resolve(_:requestorID:_:)``, but a call that names no device is a `400 missing_parameter`.
    static func require(_ request: Request, requestorID: String, _ service: BackendService) throws -> WebDevice {
        guard let device = try resolve(request, requestorID: requestorID, service) else {
            throw HTTPError(.badRequest, code: "missing_parameter", message: missingMessage)
        }
        return device
    }

    /// A live registration code of `requestorID`.
    static func fromRegcode(_ code: String, requestorID: String, _ service: BackendService) throws -> WebDevice {
        guard let record = service.regcode(code) else {
            throw HTTPError(
                .badRequest, code: "unknown_code", message: "No registration code \(code.uppercased()) exists here.")
        }
        guard record.code.requestor == requestorID else {
            throw HTTPError(
                .badRequest, code: "wrong_requestor",
                message: "The code \(record.code.code) belongs to "
                    + "\(record.code.requestor), but the call named \(requestorID).")
        }
        guard record.expires > service.now() else {
            throw HTTPError(.gone, code: "expired", message: "The registration code \(record.code.code) has expired.")
        }
        let info = record.code.info
        return WebDevice(deviceID: info.deviceId, appID: nonEmpty(info.appId), source: .regcode, regcode: record)
    }

    /// The `pass_sfp` cookie naming this device, for the answer.
    func cookie(_ service: BackendService) -> String {
        ServerFingerprint(deviceID: deviceID, appID: appID).serialized(key: service.serverFingerprintKey)
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}

extension WebDevice {
    /// The device a sign-in (`authenticate/saml`) is for: `device_id` (native SDK) or `reg_code` (web and second-screen
    /// clients); when both are sent they must name the same device.
    static func signingIn(_ request: Request, requestorID: String, _ service: BackendService) throws -> WebDevice {
        let code = nonEmpty(request.parameter("reg_code"))
        let deviceID = nonEmpty(request.parameter("device_id"))
        guard code != nil || deviceID != nil else {
            throw HTTPError(
                .badRequest, code: "missing_parameter",
                message: "The parameter device_id (native SDK) or reg_code (web and second-screen clients) is required."
            )
        }
        guard let code else { return WebDevice(deviceID: deviceID ?? "", appID: nil, source: .deviceID) }
        let device = try fromRegcode(code, requestorID: requestorID, service)
        if let deviceID, deviceID != device.deviceID {
            throw HTTPError(
                .badRequest, code: "device_mismatch",
                message:
                    "The registration code \(device.regcode?.code.code ?? code) was made for another device than device_id."
            )
        }
        return device
    }

    /// Runs `authenticate/saml` (`start`) and adds the `pass_sfp` cookie naming the device to its answer. A sign-in
    /// with a registration code is remembered as an ``ActivationAttempt`` (`via: "authenticate/saml"`), refused or not,
    /// as `/api/v1/authenticate` does, so the console's card for the code sees it.
    static func startingSignIn(_ request: Request, _ service: BackendService, _ start: () throws -> Response) throws
        -> Response
    {
        guard let code = nonEmpty(request.parameter("reg_code")) else {
            return withCookie(try start(), request, service)
        }
        var attempt = ActivationAttempt(
            at: service.now(), code: code.uppercased(), via: "authenticate/saml",
            requestorID: request.parameter("requestor_id"),
            mvpdID: request.parameter("mso_id"), outcome: "accepted",
            detail: "The sign-in with the TV provider started.")
        do {
            let response = try start()
            service.recordActivation(attempt)
            return withCookie(response, request, service)
        } catch let error as HTTPError {
            attempt.outcome = error.code
            attempt.detail = error.message
            service.recordActivation(attempt)
            throw error
        }
    }

    /// `response` with the `pass_sfp` cookie naming the device `request` signs in (unless it is an error answer).
    static func withCookie(_ response: Response, _ request: Request, _ service: BackendService) -> Response {
        guard response.status.code < 400, let requestorID = nonEmpty(request.parameter("requestor_id")),
            let device = try? signingIn(request, requestorID: requestorID, service)
        else { return response }
        var response = response
        response.setCookie(WebHeader.serverFingerprint.rawValue, device.cookie(service))
        return response
    }
}
