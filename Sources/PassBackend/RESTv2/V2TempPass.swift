import Foundation
import MicroHTTP
import PassProtocol

/// REST API v2 temporary access (docs/rest-api-v2.md §5.8): a TempPass MVPD permits without a sign-in, for `ttl`
/// seconds from a device's first decision (basic), or for one user identity (`AP-TempPass-Identity`) and at most
/// `maxResources` resources (promotional). A limit reached is an item-level denial on decisions and a top-level 403 on
/// profiles, as the vendor's samples show.
enum V2TempPass {
    /// The TempPass MVPD the path names for this service provider, if it names one.
    static func named(_ call: V2Call) -> TempPassMVPD? {
        guard let id = call.request.pathParameters["mvpd"] ?? call.request.parameter("mvpd") else { return nil }
        return call.service.configuration.tempPass.first { $0.id == id && $0.requestors.contains(call.serviceProvider) }
    }

    /// Whose use it is: the device (basic) or the identity header's decoded JSON (promotional).
    static func user(_ call: V2Call, _ temp: TempPassMVPD, deviceID: String) throws(EnhancedError) -> String {
        guard temp.promotional else { return "device:" + deviceID }
        guard let header = call.request.header("AP-TempPass-Identity"), header.utf8.count <= 4096,
            let data = Data(base64Encoded: header), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            !object.isEmpty, let canonical = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        else {
            throw EnhancedError(.invalidHeaderIdentityForTemporaryAccess,
                details: "Promotional TempPass wants AP-TempPass-Identity: Base64 of a JSON object such as {\"email\": \"…\"}.")
        }
        return "identity:" + String(decoding: canonical, as: UTF8.self)
    }

    static func key(_ call: V2Call, _ temp: TempPassMVPD, _ user: String) -> String {
        "\(temp.id)|\(call.serviceProvider)|\(user)"
    }

    /// Decisions at a TempPass MVPD; a permit starts the clock (the first) and counts the resource.
    static func decide(_ call: V2Call, _ temp: TempPassMVPD, deviceID: String, resources: [String], preauthorize: Bool) -> [V2.Decision] {
        let service = call.service
        let now = service.now()
        let user: String
        do { user = try Self.user(call, temp, deviceID: deviceID) } catch {
            return resources.map { denied($0, call, temp, error) }
        }
        let key = key(call, temp, user)
        return resources.map { resource in
            let resourceID = BackendService.resourceID(resource)
            let refusal = service.state.withLock { state -> EnhancedError? in
                var use = state.tempPassUses[key] ?? TempPassUse(started: now)
                guard now < use.started.addingTimeInterval(TimeInterval(temp.ttl)) else {
                    return EnhancedError(.temporaryAccessDurationLimitExceeded,
                        details: "This TempPass lasted \(temp.ttl) s from \(TokenDate.format(use.started)).")
                }
                if let most = temp.maxResources, !use.resources.contains(resourceID), use.resources.count >= most {
                    return EnhancedError(.temporaryAccessResourcesLimitExceeded,
                        details: "This TempPass allows \(most) resource(s); played: \(use.resources.joined(separator: ", ")).")
                }
                guard !preauthorize else { return nil }
                if !use.resources.contains(resourceID) { use.resources.append(resourceID) }
                state.tempPassUses[key] = use
                return nil
            }
            if let refusal { return denied(resource, call, temp, refusal) }
            var decision = V2.Decision(
                resource: resource, serviceProvider: call.serviceProvider, mvpd: temp.id, source: "temppass", authorized: true)
            guard !preauthorize else { return decision }
            let token = service.issueMediaToken(sessionGUID: "temppass-" + user, requestorID: call.serviceProvider, resource: resourceID, mvpdID: temp.id)
            decision.token = V2.Token(
                notBefore: EpochMilliseconds.from(token.body.issueTime), notAfter: EpochMilliseconds.from(token.body.expires),
                serializedToken: token.base64Serialized)
            return decision
        }
    }

    static func denied(_ resource: String, _ call: V2Call, _ temp: TempPassMVPD, _ error: EnhancedError) -> V2.Decision {
        V2.Decision(resource: resource, serviceProvider: call.serviceProvider, mvpd: temp.id, source: "temppass", authorized: false, error: error)
    }

    /// The temporary profile: until when, and for promotional TempPass how many resources remain and which were played.
    static func profile(_ call: V2Call, _ temp: TempPassMVPD, deviceID: String) throws(EnhancedError) -> V2.Profile {
        let user = try Self.user(call, temp, deviceID: deviceID)
        let now = call.service.now()
        let use = call.service.state.withLock { $0.tempPassUses[key(call, temp, user)] } ?? TempPassUse(started: now)
        let end = use.started.addingTimeInterval(TimeInterval(temp.ttl))
        guard now < end else {
            throw EnhancedError(.temporaryAccessDurationLimitExceeded, details: "This TempPass ended at \(TokenDate.format(end)).")
        }
        if let most = temp.maxResources, use.resources.count >= most {
            throw EnhancedError(.temporaryAccessResourcesLimitExceeded, details: "This TempPass's \(most) resource(s) were played.")
        }
        var attributes = [
            "userID": V2.Attribute(value: "temppass-" + String(user.split(separator: ":", maxSplits: 1).last ?? "")),
            "expiration_date": V2.Attribute(value: String(EpochMilliseconds.from(end))),
        ]
        if let most = temp.maxResources {
            attributes["remaining_resources"] = V2.Attribute(value: String(most - use.resources.count))
            attributes["used_assets"] = V2.Attribute(value: use.resources.joined(separator: ","))
        }
        return V2.Profile(
            notBefore: EpochMilliseconds.from(use.started), notAfter: EpochMilliseconds.from(end), issuer: "Adobe", type: "temporary",
            attributes: attributes)
    }
}
