import Foundation
import PassProtocol

/// The async/await face of ``AccessEnabler``: the same engine, the same flows, delegate callbacks and events; each
/// method waits for the callback that ends its call and returns its result or throws ``EntitlementError``.
///
/// The delegate hears the same callbacks on its own queue, and an `await` may return just before the delegate's method
/// has run there (the answer does not wait for the delegate queue); ``settle()`` waits for both.
///
/// ```swift
/// try await enabler.configure("REF30")
/// let token = try await enabler.authorization(for: "sports")   // the delegate still sees the picker and login
/// ```
extension AccessEnabler {
    /// `setRequestor`; returns when `setRequestorComplete` arrives, throws when it reports 0.
    public func configure(_ requestorID: String, serviceProviders: [URL]? = nil) async throws {
        let result = await run({ $0.setRequestor(requestorID, serviceProviders: serviceProviders, secret: nil, publicKey: nil) }) {
            if case .setRequestorComplete = $0 { true } else { false }
        }
        guard case .setRequestorComplete(1) = result else {
            throw EntitlementError(.requestorNotSet, "setRequestor(\(requestorID)) failed; see the status callbacks for the reason.")
        }
    }

    /// `checkAuthentication`: true when a valid authentication token exists.
    public func isAuthenticated() async -> Bool {
        let result = await run({ $0.submit(.checkAuthentication) }) { if case .setAuthenticationStatus = $0 { true } else { false } }
        return result == .setAuthenticationStatus(status: 1, errorCode: ErrorCode.USER_AUTHENTICATED)
    }

    /// `getAuthentication`: returns once the user is authenticated (the delegate drives the picker and web view).
    /// - Throws: ``EntitlementError`` with the error code of `setAuthenticationStatus(0, code)`.
    public func authenticate(forceAuthn: Bool = false) async throws {
        let result = await run({ $0.submit(.getAuthentication(forceAuthn: forceAuthn, data: nil)) }) {
            if case .setAuthenticationStatus = $0 { true } else { false }
        }
        if case .setAuthenticationStatus(0, let code) = result {
            throw EntitlementError(Self.code(code), "Authentication failed: \(code ?? "unknown")")
        }
    }

    /// `getAuthorization`: a short media token for `resource`, logging in first when needed.
    /// - Throws: ``EntitlementError`` with the code and description of `tokenRequestFailed`.
    public func authorization(for resource: String, data: [String: String]? = nil) async throws -> String {
        let result = await run({ $0.submit(.getAuthorization(resource: resource, data: data)) }) { callback in
            switch callback {
            case .setToken(_, let r), .tokenRequestFailed(let r, _, _): r == resource
            default: false
            }
        }
        switch result {
        case .setToken(let token, _): return token
        case .tokenRequestFailed(_, let code, let description):
            throw EntitlementError(Self.code(code), description.flatMap { $0.isEmpty ? nil : $0 } ?? code)
        default: throw EntitlementError(.genericAuthorization, "Unexpected answer \(result.name)")
        }
    }

    /// `checkPreauthorizedResources`: the subset of `resources` the user may view.
    public func preauthorized(_ resources: [String]) async -> [String] {
        let result = await run({ $0.submit(.checkPreauthorizedResources(resources: resources)) }) {
            if case .preauthorizedResources = $0 { true } else { false }
        }
        if case .preauthorizedResources(let allowed) = result { return allowed }
        return []
    }

    /// Runs `start` in call order and waits for the first callback `matches` accepts.
    ///
    /// When no earlier call is still waiting in the intake, nothing can be overtaken: the caller's task goes to the
    /// engine itself instead of handing the call to the intake's task and waking it (one thread hop less per call).
    private func run(
        _ start: @escaping @Sendable (isolated EntitlementEngine) -> Void,
        until matches: @escaping @Sendable (EntitlementCallback) -> Bool
    ) async -> EntitlementCallback {
        if intakeIsEmpty { return await engine.call(start, until: matches) }
        return await withCheckedContinuation { continuation in
            send { engine in
                await engine.addWaiter(matches: matches, continuation: continuation)
                await start(engine)
            }
        }
    }

    static func code(_ raw: String?) -> EntitlementError.Code {
        let all: [EntitlementError.Code] = [
            .userNotAuthenticated, .genericAuthentication, .internalAuthentication, .providerNotAvailable, .providerNotSelected,
            .userNotAuthorized, .internalAuthorization, .genericAuthorization, .requestorNotSet, .apiTooOld,
        ]
        return all.first { $0.rawValue == raw } ?? .genericAuthorization
    }
}

/// A caller of the async API waiting for the callback that ends its call.
struct CallbackWaiter: Sendable {
    let matches: @Sendable (EntitlementCallback) -> Bool
    let continuation: CheckedContinuation<EntitlementCallback, Never>
}

extension EntitlementEngine {
    /// Registers a waiter for the callback `matches` accepts, runs `start`, and waits for that callback.
    func call(_ start: @Sendable (isolated EntitlementEngine) -> Void, until matches: @escaping @Sendable (EntitlementCallback) -> Bool) async
        -> EntitlementCallback
    {
        await withCheckedContinuation { continuation in
            addWaiter(matches: matches, continuation: continuation)
            start(self)
        }
    }

    func addWaiter(matches: @escaping @Sendable (EntitlementCallback) -> Bool, continuation: CheckedContinuation<EntitlementCallback, Never>) {
        waiters.append(CallbackWaiter(matches: matches, continuation: continuation))
    }

    /// Hands `callback` (unredacted) to the first waiter that wants it.
    func resumeWaiter(with callback: EntitlementCallback) {
        guard let index = waiters.firstIndex(where: { $0.matches(callback) }) else { return }
        let continuation = waiters.remove(at: index).continuation
        writer.afterWrites { continuation.resume(returning: callback) }
    }
}
