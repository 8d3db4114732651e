import Foundation
import PassProtocol
import Locking

/// The async/await face of ``AccessEnabler``: the same engine, the same flows, delegate callbacks and events; each
/// method waits for the callback that ends its call and returns its result or throws ``EntitlementError``.
///
/// The delegate hears the same callbacks on its own queue, and an `await` may return just before the delegate's method
/// has run there (the answer does not wait for the delegate queue); ``settle()`` waits for both. Cancelling the task
/// that awaits a call while the call's own requests are out cancels them: the call throws, and the delegate hears the
/// failure's callback. A call waiting on the user (the picker, the login page) keeps waiting.
///
/// ```swift
/// try await enabler.configure("REF30")
/// let token = try await enabler.authorization(for: "sports")   // the delegate still sees the picker and login
/// ```
extension AccessEnabler {
    /// `setRequestor`; returns when `setRequestorComplete` arrives, throws when it reports 0.
    public func configure(_ requestorID: String, serviceProviders: [URL]? = nil) async throws {
        let result = await run(.setRequestor(requestorID, serviceProviders)) {
            if case .setRequestorComplete = $0 { true } else { false }
        }
        guard case .setRequestorComplete(1) = result else {
            throw EntitlementError(.requestorNotSet, "setRequestor(\(requestorID)) failed; see the status callbacks for the reason.")
        }
    }

    /// `checkAuthentication`: true when a valid authentication token exists.
    public func isAuthenticated() async -> Bool {
        let result = await run(.call(.checkAuthentication)) { if case .setAuthenticationStatus = $0 { true } else { false } }
        return result == .setAuthenticationStatus(status: 1, errorCode: ErrorCode.USER_AUTHENTICATED)
    }

    /// `getAuthentication`: returns once the user is authenticated (the delegate drives the picker and web view).
    /// - Throws: ``EntitlementError`` with the error code of `setAuthenticationStatus(0, code)`.
    public func authenticate(forceAuthn: Bool = false) async throws {
        let result = await run(.call(.getAuthentication(forceAuthn: forceAuthn, data: nil))) {
            if case .setAuthenticationStatus = $0 { true } else { false }
        }
        if case .setAuthenticationStatus(0, let code) = result {
            throw EntitlementError(Self.code(code), "Authentication failed: \(code ?? "unknown")")
        }
    }

    /// `getAuthorization`: a short media token for `resource`, logging in first when needed.
    /// - Throws: ``EntitlementError`` with the code and description of `tokenRequestFailed`.
    public func authorization(for resource: String, data: [String: String]? = nil) async throws -> String {
        let result = await run(.call(.getAuthorization(resource: resource, data: data))) { callback in
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
        let result = await run(.call(.checkPreauthorizedResources(resources: resources))) {
            if case .preauthorizedResources = $0 { true } else { false }
        }
        if case .preauthorizedResources(let allowed) = result { return allowed }
        return []
    }

    /// Runs `start` in call order and waits for the first callback `matches` accepts.
    ///
    /// The call's operation runs on the caller's task, in its turn among the engine's operations (no task is made and
    /// woken for it): cancelling the caller cancels the call's requests. Calls made before it and still in the intake
    /// are let through first, so it never overtakes them.
    private func run(_ start: AsyncStart, until matches: @escaping @Sendable (EntitlementCallback) -> Bool) async -> EntitlementCallback {
        if !intakeIsEmpty { await withCheckedContinuation { continuation in send { _ in continuation.resume() } } }
        return await engine.call(start, until: matches)
    }

    static func code(_ raw: String?) -> EntitlementError.Code {
        let all: [EntitlementError.Code] = [
            .userNotAuthenticated, .genericAuthentication, .internalAuthentication, .providerNotAvailable, .providerNotSelected,
            .userNotAuthorized, .internalAuthorization, .genericAuthorization, .requestorNotSet, .apiTooOld,
        ]
        return all.first { $0.rawValue == raw } ?? .genericAuthorization
    }
}

/// What an async call starts on the engine.
enum AsyncStart: Sendable {
    case setRequestor(String, [URL]?)
    case call(PendingCall)
}

/// A caller of the async API waiting for the callback that ends its call.
struct CallbackWaiter: Sendable {
    let matches: @Sendable (EntitlementCallback) -> Bool
    let answer: AnswerBox
}

/// The callback an inline async call waits for: it may arrive before the caller starts waiting (while the call's own
/// operation still runs on the caller's task).
final class AnswerBox: Sendable {
    private let state = Mutex<(answer: EntitlementCallback?, waiting: CheckedContinuation<EntitlementCallback, Never>?)>((nil, nil))

    func set(_ answer: EntitlementCallback) {
        let waiting = state.withLock { state -> CheckedContinuation<EntitlementCallback, Never>? in
            defer { state.waiting = nil }
            if state.waiting == nil { state.answer = answer }
            return state.waiting
        }
        waiting?.resume(returning: answer)
    }

    var value: EntitlementCallback {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> EntitlementCallback? in
                    if state.answer == nil { state.waiting = continuation }
                    return state.answer
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

extension EntitlementEngine {
    /// The async API's inline call: registers the waiter, runs the call's operation on the caller's task in its turn,
    /// and waits for the callback `matches` accepts.
    func call(_ start: AsyncStart, until matches: @escaping @Sendable (EntitlementCallback) -> Bool) async -> EntitlementCallback {
        let answer = AnswerBox()
        waiters.append(CallbackWaiter(matches: matches, answer: answer))
        switch start {
        case .setRequestor(let requestorID, let serviceProviders):
            setRequestor(requestorID, serviceProviders: serviceProviders, secret: nil, publicKey: nil)
        case .call(let call): await submitInline(call)
        }
        return await answer.value
    }

    /// Hands `callback` (unredacted) to the first waiter that wants it.
    func resumeWaiter(with callback: EntitlementCallback) {
        guard let index = waiters.firstIndex(where: { $0.matches(callback) }) else { return }
        let answer = waiters.remove(at: index).answer
        answer.set(callback)
    }
}
