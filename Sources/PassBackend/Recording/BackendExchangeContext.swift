import Foundation
import MicroHTTP
import PassProtocol
import PassRecording
import WireDates

/// What the backend's state adds to an exchange's reading: the device, Programmer, MVPD and code of a login in
/// progress (the MVPD pages, the SAML consumer's RelayState), the device of a registration code, of a `pass_sfp` this
/// backend signed and of a user ID, the sign-in the exchange concerns, and the sign-ins a revocation ended.
struct BackendExchangeContext: ExchangeContext {
    let service: BackendService

    func complete(_ reading: inout ExchangeReading, _ request: Request) {
        var request = request
        request.readLog = nil
        if reading.deviceID == nil,
            let sfp = ExchangeReading.nonEmptyText(request.header(WebHeader.serverFingerprint.rawValue) ?? request.cookies[WebHeader.serverFingerprint.rawValue]),
            let parsed = ServerFingerprint.parse(sfp, key: service.serverFingerprintKey)
        {
            reading.deviceID = parsed.deviceID
        }
        if let loginID = ExchangeReading.nonEmptyText(request.parameter("login") ?? request.parameter("RelayState")),
            let login = service.loginForRecording(loginID)
        {
            reading.deviceID = reading.deviceID ?? login.deviceID
            reading.requestorID = reading.requestorID ?? login.requestorID
            reading.mvpdID = reading.mvpdID ?? login.mvpdID
            reading.registrationCode = reading.registrationCode ?? login.regcode
        }
        if let code = reading.registrationCode, let record = service.regcode(code) {
            reading.registrationCode = record.code.code
            reading.deviceID = reading.deviceID ?? ExchangeReading.nonEmptyText(record.code.info.deviceId)
            reading.requestorID = reading.requestorID ?? record.code.requestor
        }
        if reading.deviceID == nil, let guid = ExchangeReading.nonEmptyText(request.parameter("session_guid")),
            let session = service.signIns.last(where: { $0.guid == guid })
        {
            reading.deviceID = session.deviceID
        }
    }

    func signIn(device: String, requestor: String?) -> SignInFacts? {
        service.signIns.last { $0.deviceID == device && (requestor == nil || $0.requestorID == requestor) }.map(facts)
    }

    func revoked(by request: Request) -> [SignInFacts] {
        let filter = (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any]) ?? [:]
        let device = filter["deviceId"] as? String
        let requestor = filter["requestor"] as? String
        return service.sessions.filter {
            $0.revoked && (device == nil || $0.deviceID == device) && (requestor == nil || $0.requestorID == requestor)
        }.map(facts)
    }

    func facts(_ session: AuthSession) -> SignInFacts {
        let now = service.now()
        let state = session.revoked ? "revoked on the server" : session.expires <= now ? "expired" : "valid"
        return SignInFacts(
            userID: session.guid, username: session.username, deviceID: session.deviceID, requestorID: session.requestorID,
            mvpdID: session.mvpdID,
            token: "authN token of \(session.username) at \(session.mvpdID) for \(session.requestorID), issued "
                + "\(ISODate.format(session.issued)), expires \(ISODate.format(session.expires)): \(state)")
    }
}
