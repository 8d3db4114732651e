import Foundation
import MicroHTTP
import PassProtocol

/// REST API v2 decisions (docs/rest-api-v2.md §3.10–3.11): authorize (each permit with its short media token) and
/// preauthorize, for a list of resources at one MVPD. A denial is an item-level error inside an answer of 200; a
/// request that cannot be decided (no profile, a bad body) is a top-level error.
enum V2DecisionRoutes {
    static func register(in router: inout Router, service: BackendService) {
        // Inline (answered on the server's thread, no task hop) like REST v1's authorize: nothing here waits.
        router.on("POST", "/api/v2/{serviceProvider}/decisions/authorize/{mvpd}", inline: { request in
            try decide(request, service, preauthorize: false)
        })
        router.on("POST", "/api/v2/{serviceProvider}/decisions/preauthorize/{mvpd}", inline: { request in
            try decide(request, service, preauthorize: true)
        })
    }

    /// How many resources one call may ask about (the vendor's `too_many_resources` past a configured limit).
    static let maximumResources = 100

    static func decide(_ request: Request, _ service: BackendService, preauthorize: Bool) throws(EnhancedError) -> Response {
        let call = try V2Call(request, service)
        let deviceID = try call.deviceID
        _ = try call.deviceInfo
        if let temp = V2TempPass.named(call) {
            let resources = try Self.resources(request)
            return V2Call.decisions(V2.Decisions(decisions: V2TempPass.decide(call, temp, deviceID: deviceID, resources: resources, preauthorize: preauthorize)))
        }
        let mvpd = try call.mvpd()
        let resources = try Self.resources(request)
        guard resources.count <= maximumResources else {
            throw EnhancedError(.tooManyResources, details: "\(resources.count) resources; at most \(maximumResources) per call.")
        }
        if let rule = call.degradation(mvpd), let degraded = degraded(call, rule: rule, deviceID: deviceID, mvpd: mvpd, resources: resources, preauthorize: preauthorize) {
            return V2Call.decisions(V2.Decisions(decisions: degraded))
        }
        let session = try call.liveSession(deviceID: deviceID, mvpd: mvpd)
        let now = service.now()
        let decisionEnd = EpochMilliseconds.from(now.addingTimeInterval(TimeInterval(mvpd.authzTTL)))
        let decisions = resources.map { resource -> V2.Decision in
            // Preauthorization's decisions carry no validity (the vendor's attribute list and samples have none).
            var decision = V2.Decision(
                resource: resource, serviceProvider: call.serviceProvider, mvpd: mvpd.id, source: "mvpd", authorized: false,
                notBefore: preauthorize ? nil : EpochMilliseconds.from(now), notAfter: preauthorize ? nil : decisionEnd)
            if let refusal = service.entitlementRefusal(session: session, resource: resource) {
                decision.error = EnhancedError(preauthorize ? .preauthorizationDeniedByMVPD : .authorizationDeniedByMVPD, details: refusal)
                return decision
            }
            decision.authorized = true
            guard !preauthorize else { return decision }
            let resourceID = BackendService.resourceID(resource)
            service.state.withLock {
                $0.authorizations[BackendState.authorizationKey(call.serviceProvider, deviceID, resourceID)] = AuthZRecord(
                    requestorID: call.serviceProvider, deviceID: deviceID, resource: resourceID, mvpdID: mvpd.id,
                    expires: now.addingTimeInterval(TimeInterval(mvpd.authzTTL)))
            }
            service.recordVisitor(request, .authorization, session: session, resource: resourceID)
            let token = service.issueMediaToken(sessionGUID: session.guid, requestorID: call.serviceProvider, resource: resourceID, mvpdID: mvpd.id)
            decision.token = V2.Token(
                notBefore: EpochMilliseconds.from(token.body.issueTime), notAfter: EpochMilliseconds.from(token.body.expires),
                serializedToken: token.base64Serialized)
            return decision
        }
        return V2Call.decisions(V2.Decisions(decisions: decisions))
    }

    /// Decisions made by a degradation rule instead of the MVPD (`source: degradation`): AuthNAll and AuthZAll permit
    /// (AuthZAll only with a live profile), AuthZNone denies. `nil` when the rule does not apply (AuthZAll without a
    /// profile: the basic flow's answer).
    static func degraded(
        _ call: V2Call, rule: Degradation.Rule, deviceID: String, mvpd: MVPD, resources: [String], preauthorize: Bool
    ) -> [V2.Decision]? {
        let service = call.service
        let session = try? call.liveSession(deviceID: deviceID, mvpd: mvpd)
        if rule == .authZAll, session == nil { return nil }
        let now = service.now()
        return resources.map { resource in
            var decision = V2.Decision(
                resource: resource, serviceProvider: call.serviceProvider, mvpd: mvpd.id, source: "degradation", authorized: rule != .authZNone)
            if rule == .authNAll, !preauthorize {
                decision.notBefore = EpochMilliseconds.from(now)
                decision.notAfter = EpochMilliseconds.from(now.addingTimeInterval(TimeInterval(mvpd.authzTTL)))
            }
            guard rule != .authZNone else {
                decision.error = EnhancedError(.authorizationDeniedByDegradationRule, details: "A degradation rule (AuthZNone) is applied to \(mvpd.id).")
                return decision
            }
            guard !preauthorize else { return decision }
            let token = service.issueMediaToken(
                sessionGUID: session?.guid ?? "degraded-" + deviceID, requestorID: call.serviceProvider,
                resource: BackendService.resourceID(resource), mvpdID: mvpd.id)
            decision.token = V2.Token(
                notBefore: EpochMilliseconds.from(token.body.issueTime), notAfter: EpochMilliseconds.from(token.body.expires),
                serializedToken: token.base64Serialized)
            return decision
        }
    }

    /// `{"resources": ["…", …]}`: a JSON object whose `resources` is a non-empty array of non-empty strings.
    static func resources(_ request: Request) throws(EnhancedError) -> [String] {
        guard let body = V2.DecisionsRequest.parse(request.body) else {
            throw EnhancedError(.invalidParameterResources,
                details: "The body must be JSON: {\"resources\": [\"<resource>\", …]} (Content-Type: application/json).")
        }
        guard !body.resources.isEmpty, body.resources.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 16_384 }) else {
            throw EnhancedError(.invalidParameterResources, details: "resources must list at least one non-empty resource.")
        }
        return body.resources
    }
}
