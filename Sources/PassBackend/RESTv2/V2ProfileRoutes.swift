import Foundation
import MicroHTTP
import PassProtocol

/// REST API v2 profiles (docs/rest-api-v2.md §3.6–3.9): what a sign-in is on v2. A device's profiles are its live
/// sessions with the service provider; by code, the session the code's sign-in made (the second screen's device
/// polls it). No profile is an empty map, not an error.
enum V2ProfileRoutes {
    static func register(in router: inout Router, service: BackendService) {
        router.get("/api/v2/{serviceProvider}/profiles") { request in try all(request, service) }
        router.get("/api/v2/{serviceProvider}/profiles/{mvpd}") { request in try byMVPD(request, service) }
        router.get("/api/v2/{serviceProvider}/profiles/code/{code}") { request in try byCode(request, service) }
    }

    static func all(_ request: Request, _ service: BackendService) throws(EnhancedError) -> Response {
        let call = try V2Call(request, service)
        let deviceID = try call.deviceID
        _ = try call.deviceInfo
        var found = profiles(of: call.session(deviceID: deviceID), service)
        if let sso = call.ssoSession(), found[sso.session.mvpdID] == nil { found[sso.session.mvpdID] = ssoProfile(sso.session, sso.identity, service) }
        return V2Call.json(V2.Profiles(profiles: found))
    }

    /// A sign-in found through single sign-on, as the vendor shows it: its type names the method, its attributes the
    /// upstream user, the user and the MVPD.
    static func ssoProfile(_ session: AuthSession, _ identity: V2SSOIdentity, _ service: BackendService) -> V2.Profile {
        var profile = profile(session, service)
        profile.type = identity.profileType
        profile.attributes["upstreamUserID"] = V2.Attribute(value: session.userID)
        profile.attributes["mvpd"] = V2.Attribute(value: session.mvpdID)
        return profile
    }

    static func byMVPD(_ request: Request, _ service: BackendService) throws(EnhancedError) -> Response {
        let call = try V2Call(request, service)
        let deviceID = try call.deviceID
        _ = try call.deviceInfo
        if let temp = V2TempPass.named(call) {
            return V2Call.json(V2.Profiles(profiles: [temp.id: try V2TempPass.profile(call, temp, deviceID: deviceID)]))
        }
        let mvpd = try call.mvpd()
        var found = profiles(of: call.session(deviceID: deviceID), service).filter { $0.key == mvpd.id }
        if found.isEmpty, let sso = call.ssoSession(), sso.session.mvpdID == mvpd.id { found[mvpd.id] = ssoProfile(sso.session, sso.identity, service) }
        // Degraded access (AuthNAll) stands in when there is no sign-in at that MVPD.
        if found.isEmpty, call.degradation(mvpd) == .authNAll { found[mvpd.id] = call.degradedProfile(deviceID: deviceID) }
        return V2Call.json(V2.Profiles(profiles: found))
    }

    static func byCode(_ request: Request, _ service: BackendService) throws(EnhancedError) -> Response {
        let call = try V2Call(request, service)
        let code = request.pathParameters["code"] ?? ""
        guard code.utf8.count <= 64, let record = service.regcode(code), record.code.requestor == call.serviceProvider else {
            throw EnhancedError(.invalidParameterCode, details: "No authentication session has the code \(code).")
        }
        guard record.expires > service.now() else {
            throw EnhancedError(.invalidAuthenticationSession, details: "The code \(record.code.code) has expired.")
        }
        let session = service.session(for: record)
        // The sign-in reaching the app (the seeds' sessionDevice): the visitor ID it sent is recorded with it.
        if let session, !session.revoked, session.expires > service.now() { service.recordVisitor(request, .signIn, session: session) }
        return V2Call.json(V2.Profiles(profiles: profiles(of: session, service)))
    }

    /// The session as a profile map: empty unless it is live.
    static func profiles(of session: AuthSession?, _ service: BackendService) -> [String: V2.Profile] {
        guard let session, !session.revoked, session.expires > service.now() else { return [:] }
        return [session.mvpdID: profile(session, service)]
    }

    static func profile(_ session: AuthSession, _ service: BackendService) -> V2.Profile {
        var attributes = ["userID": V2.Attribute(value: session.userID)]
        if let subscriber = service.subscriber(of: session) {
            let metadata = service.userMetadata(for: subscriber, session: session)
            let encrypted = Set(metadata.encrypted)
            for (key, value) in metadata.data where key != "userID" {
                attributes[key] = V2.Attribute(value: value, state: encrypted.contains(key) ? "enc" : "plain")
            }
        }
        return V2.Profile(
            notBefore: EpochMilliseconds.from(session.issued), notAfter: EpochMilliseconds.from(session.expires),
            issuer: session.tokenSource == "apple" ? "Apple" : session.mvpdID, type: session.tokenSource == "apple" ? "appleSSO" : "regular",
            attributes: attributes)
    }
}
