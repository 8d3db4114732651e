import Foundation
import PassProtocol

/// `setRequestor`, `setOptions` and the call queue (spec §1.2, §1.3).
extension EntitlementEngine {
    func setRequestor(_ requestorID: String, serviceProviders: [URL]?, secret: String?, publicKey: String?) {
        emit(.apiCall(method: .setRequestor, arguments: ["requestorID": requestorID, "serviceProviders": (serviceProviders ?? []).map(\.absoluteString).joined(separator: ",")]))
        if let secret, let publicKey { tvosCredentials = (secret, publicKey) }
        let before = requestorMachine.flowState
        requestorMachine.setRequestorStarted()
        pendingRequestorID = requestorID
        transition(.requestor, from: before, to: requestorMachine.flowState)
        let bases = serviceProviders.flatMap { $0.isEmpty ? nil : $0 } ?? [configuration.defaultServiceProvider]
        let clients: [any ConfigurationSource] = bases.map { base -> any ConfigurationSource in
            onRESTv2 ? v2Client(base: base, requestorID: requestorID) : client(base: base)
        }
        Task { await self.configure(requestorID: requestorID, clients: clients) }
    }

    /// Fetches the configuration from every service provider at once (spec §1.3: the MVPD lists are merged, for an
    /// MVPD offered twice the fastest answer wins, and each MVPD's later calls go to the provider it came from), runs
    /// the importer, sanitizer and passive authentication (on v2: the device-identifier check only), reports
    /// `setRequestorComplete`, then runs the calls that waited.
    private func configure(requestorID: String, clients: [any ConfigurationSource]) async {
        let answers = await Self.fetchConfigurations(clients, requestorID: requestorID)
        let result = Self.merge(answers, bases: clients.map(\.base), requestorID: requestorID)
        for (index, answer) in answers where clients.count > 1 {
            if case .failure(let failure) = answer {
                fail(ErrorCode.providerNotAvailable.rawValue, "Service provider \(clients[index].base) did not configure "
                    + "\(requestorID): \(Self.configurationError(failure, requestorID: requestorID).message)")
            }
        }
        switch result {
        case .success(let configured):
            requestor = configured
            checkDeviceClock()
            if onRESTv2 { prepareRESTv2() } else { await prepareStorage() }
        case .failure(let error):
            requestor = nil
            fail(error.code.rawValue, error.message)
            if let advanced = error.advancedStatus { status(advanced, message: error.message) }
        }
        let before = requestorMachine.flowState
        let action = requestorMachine.configurationFinished(success: requestor != nil)
        transition(.requestor, from: before, to: requestorMachine.flowState)
        switch action {
        case .complete(let draining):
            callback(.setRequestorComplete(status: PassConstants.ACCESS_ENABLER_STATUS_SUCCESS))
            for call in draining { enqueue { await self.perform(call) } }
        case .fail(let draining):
            callback(.setRequestorComplete(status: PassConstants.ACCESS_ENABLER_STATUS_ERROR))
            for call in draining { enqueue { await self.refuse(call) } }
        }
        writer.flushSoon()  // a passive authentication's token
    }

    /// Warns with `CFG100` when the device's clock and the service's (its answer's `Date`) disagree by more than
    /// ``AccessEnabler/clockSkewTolerance``: tokens' lifetimes are judged by the device's clock.
    func checkDeviceClock() {
        guard let offset = transport?.serverClockOffset(localNow: now()), abs(offset) > AccessEnabler.clockSkewTolerance else { return }
        let direction = offset > 0 ? "behind" : "ahead of"
        status(.CFG100, message: "The device's clock is \(Int(abs(offset).rounded())) s \(direction) the service's: "
            + "check the date, time and time zone.", extra: ["clockOffsetSeconds": String(Int(offset.rounded()))])
    }

    /// Every provider's configuration answer with the provider's index, in arrival order. One provider (the common
    /// case) is asked from the caller's executor, without a task group's hops.
    nonisolated(nonsending) static func fetchConfigurations(_ clients: [any ConfigurationSource], requestorID: String) async
        -> [(Int, Result<RequestorConfiguration, SDKClient.Failure>)]
    {
        if clients.count == 1 { return [(0, await fetchConfiguration(clients[0], requestorID: requestorID))] }
        return await withTaskGroup(of: (Int, Result<RequestorConfiguration, SDKClient.Failure>).self) { group in
            for (index, client) in clients.enumerated() {
                group.addTask { (index, await Self.fetchConfiguration(client, requestorID: requestorID)) }
            }
            var inArrivalOrder: [(Int, Result<RequestorConfiguration, SDKClient.Failure>)] = []
            for await answer in group { inArrivalOrder.append(answer) }
            return inArrivalOrder
        }
    }

    /// One provider's configuration answer. (A function rather than a typed `do throws(…)` inside the task-group
    /// closure: that form crashed the release build with a garbage index.)
    nonisolated(nonsending) static func fetchConfiguration(_ client: any ConfigurationSource, requestorID: String) async -> Result<RequestorConfiguration, SDKClient.Failure> {
        do {
            return .success(try await client.configuration(requestorID: requestorID))
        } catch {
            return .failure(error)
        }
    }

    /// The requestor configured by the answers, merged in arrival order; the first URL's failure when none succeeded.
    static func merge(
        _ answers: [(Int, Result<RequestorConfiguration, SDKClient.Failure>)], bases: [URL], requestorID: String
    ) -> Result<ConfiguredRequestor, EntitlementError> {
        var merged: ConfiguredRequestor?
        for (index, answer) in answers {
            guard case .success(let configuration) = answer else { continue }
            let base = bases[index]
            if merged == nil {
                merged = ConfiguredRequestor(id: requestorID, serviceProvider: base, configuration: configuration, mvpds: [])
            }
            for info in configuration.mvpds where merged?.mvpd(info.id) == nil {
                merged?.mvpds.append(MVPD(info, baseURL: base))
                merged?.mvpdServiceProviders[info.id] = base
            }
        }
        if let merged { return .success(merged) }
        let first = answers.min { $0.0 < $1.0 }
        guard case .failure(let failure)? = first?.1 else {
            return .failure(EntitlementError(.requestorNotSet, "No service provider answered for \(requestorID)."))
        }
        return .failure(configurationError(failure, requestorID: requestorID))
    }

    static func configurationError(_ failure: SDKClient.Failure, requestorID: String) -> EntitlementError {
        registrationError(failure) ?? configurationCallError(failure, requestorID: requestorID)
    }

    private static func configurationCallError(_ failure: SDKClient.Failure, requestorID: String) -> EntitlementError {
        switch failure {
        case .unreachable(let reason):
            EntitlementError(.providerNotAvailable, "The service provider could not be reached: \(reason)", advancedStatus: .CFG404)
        case .status(400, let details, _), .status(404, let details, _):
            EntitlementError(.requestorNotSet, details ?? "Requestor not found for given ID: \(requestorID)", advancedStatus: .CFG400)
        case .status(410, _, _):
            EntitlementError(.apiTooOld, "The service no longer supports this SDK version.", advancedStatus: .CFG410)
        case .status(429, _, _):
            EntitlementError(.requestorNotSet, "setRequestor was throttled (HTTP 429).", advancedStatus: .CFG429)
        case .status(let code, let details, _):
            EntitlementError(.requestorNotSet, "The configuration call failed with HTTP \(code)\(details.map { ": \($0)" } ?? "").", advancedStatus: code >= 500 ? .CFG5xx : nil)
        case .malformed(let reason):
            EntitlementError(.requestorNotSet, "The configuration answer cannot be read: \(reason)", advancedStatus: .CFG5xx)
        }
    }

    /// REST API v2's registration refusals (design note §8.1): a software statement the service refuses (or none, or
    /// one of another Programmer) is `R400`; no access token to be had is `R401`. Nil for any other failure.
    static func registrationError(_ failure: SDKClient.Failure) -> EntitlementError? {
        guard case .status(let status, let details, let code?) = failure else { return nil }
        let words = details.map { ": \($0)" } ?? ""
        switch code {
        case V2Registration.missingStatement, "invalid_software_statement", "unapproved_software_statement", "invalid_redirect_uri":
            return EntitlementError(.requestorNotSet, "The app's registration for REST API v2 was refused (\(code))\(words)", advancedStatus: .R400)
        case "invalid_access_token_service_provider" where status == 401:
            return EntitlementError(.requestorNotSet, "The software statement belongs to another Programmer (\(code))\(words)", advancedStatus: .R400)
        case "invalid_client", "unauthorized_client", "unsupported_grant_type", "invalid_access_token_client_application",
            V2Registration.noAccessToken:
            return EntitlementError(.requestorNotSet, "No REST API v2 access token could be had (\(code))\(words)", advancedStatus: .R401)
        default:
            return nil
        }
    }

    func setOptions(_ options: [String: String]) {
        emit(.apiCall(method: .setOptions, arguments: options.mapValues { $0.count > 64 ? String($0.prefix(64)) + "…" : $0 }))
        var options = options
        if let visitorID = options[PassConstants.OPTION_VISITOR_ID], let problem = VisitorID.problem(visitorID) {
            // A header value that is not one (a line break, a space) is dropped, never sent.
            fail(ErrorCode.internalError.rawValue, "setOptions: the visitorID \(problem) It is not sent.")
            options[PassConstants.OPTION_VISITOR_ID] = nil
        }
        self.options.merge(options) { $1 }
        transport = nil  // The next request carries the new visitor ID / device info.
        dispatcher.handleSVC.withLock { $0 = (self.options[PassConstants.OPTION_HANDLE_SVC] ?? "false").lowercased() == "true" }
    }

    /// An entitlement call from the app: runs now, waits for `setRequestor`, or fails because there is no requestor.
    func submit(_ call: PendingCall) {
        if let operation = accept(call) { enqueue(operation) }
    }

    /// ``submit(_:)`` for the async API: the operation runs on the caller's task, in its turn.
    func submitInline(_ call: PendingCall) async {
        if let operation = accept(call) { await runInOrder(operation) }
    }

    /// Records the call and asks the requestor machine what to do: the operation to run, or nil while it waits for
    /// `setRequestor`.
    private func accept(_ call: PendingCall) -> (@Sendable () async -> Void)? {
        emit(.apiCall(method: call.method, arguments: call.arguments))
        let before = requestorMachine.flowState
        let action = requestorMachine.call(call)
        transition(.requestor, from: before, to: requestorMachine.flowState)
        switch action {
        case .run(let call): return { await self.perform(call) }
        case .enqueue:
            logger.debug("\(call.name) queued until setRequestor completes")
            return nil
        case .fail(let call): return { await self.refuse(call) }
        }
    }

    func perform(_ call: PendingCall) async {
        if onRESTv2 {
            await performRESTv2(call)
            return
        }
        switch call {
        case .checkAuthentication: checkAuthentication()
        case .getAuthentication(let force, let data): await getAuthentication(forceAuthn: force, data: data)
        case .checkAuthorization(let resource, let data): await authorize(resource, data: data, startLogin: false)
        case .getAuthorization(let resource, let data): await authorize(resource, data: data, startLogin: true)
        case .checkPreauthorizedResources(let resources): await checkPreauthorizedResources(resources)
        case .getMetadata(let key, let arguments): await getMetadata(key: key, arguments: arguments)
        case .logout: await logout()
        }
    }

    /// Each call on REST API v2 (design note §8).
    private func performRESTv2(_ call: PendingCall) async {
        switch call {
        case .checkAuthentication: await checkAuthenticationRESTv2()
        case .getAuthentication(let force, let data): await getAuthentication(forceAuthn: force, data: data)
        case .checkAuthorization(let resource, let data): await authorizeRESTv2(resource, data: data, startLogin: false)
        case .getAuthorization(let resource, let data): await authorizeRESTv2(resource, data: data, startLogin: true)
        case .checkPreauthorizedResources(let resources): await preauthorizeRESTv2(resources)
        case .getMetadata(let key, let arguments): await getMetadataRESTv2(key: key, arguments: arguments)
        case .logout: await logoutRESTv2()
        }
    }

    /// The error callback a call gets when there is no configured requestor.
    func refuse(_ call: PendingCall) {
        let code = ErrorCode.internalError.rawValue
        fail(code, "\(call.name) needs a successful setRequestor first.")
        switch call {
        case .checkAuthentication, .getAuthentication, .logout:
            callback(.setAuthenticationStatus(status: 0, errorCode: code))
        case .checkAuthorization(let resource, _), .getAuthorization(let resource, _):
            callback(.tokenRequestFailed(resource: resource, errorCode: code, errorDescription: "setRequestor did not complete."))
        case .checkPreauthorizedResources: callback(.preauthorizedResources(resources: []))
        case .getMetadata(let key, let arguments):
            callback(.setMetadataStatus(metadata: nil, encrypted: false, key: key, arguments: arguments))
        }
    }
}

extension PendingCall {
    var arguments: [String: String] {
        switch self {
        case .checkAuthentication, .logout: [:]
        case .getAuthentication(let force, let data): ["forceAuthn": String(force)].merging(data ?? [:]) { a, _ in a }
        case .checkAuthorization(let resource, _), .getAuthorization(let resource, _): ["resource": resource]
        case .checkPreauthorizedResources(let resources): ["resources": resources.joined(separator: ",")]
        case .getMetadata(let key, let arguments): [PassConstants.METADATA_OPCODE_KEY: String(key)].merging(arguments ?? [:]) { a, _ in a }
        }
    }
}
