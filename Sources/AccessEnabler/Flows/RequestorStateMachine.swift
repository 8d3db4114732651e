import Foundation

/// An API call that may have to wait for `setRequestor` (spec §1.3: every entitlement call is queued while it runs).
enum PendingCall: Sendable, Equatable {
    case checkAuthentication
    case getAuthentication(forceAuthn: Bool, data: [String: String]?)
    case checkAuthorization(resource: String, data: [String: String]?)
    case getAuthorization(resource: String, data: [String: String]?)
    case checkPreauthorizedResources(resources: [String])
    case getMetadata(key: Int, arguments: [String: String]?)
    case logout

    var method: APIMethod {
        switch self {
        case .checkAuthentication: .checkAuthentication
        case .getAuthentication: .getAuthentication
        case .checkAuthorization: .checkAuthorization
        case .getAuthorization: .getAuthorization
        case .checkPreauthorizedResources: .checkPreauthorizedResources
        case .getMetadata: .getMetadata
        case .logout: .logout
        }
    }

    var name: String { method.rawValue }
}

/// Gates API calls on setRequestor: calls made while it is in flight wait, then run in order; when it fails each
/// waiting call gets its error callback.
struct RequestorStateMachine: Sendable {
    private enum State: Sendable {
        case unconfigured
        case configuring(pending: [PendingCall])
        case ready
        case failed
    }

    enum CallAction: Equatable, Sendable { case run(PendingCall), enqueue, fail(PendingCall) }
    enum FinishedAction: Equatable, Sendable { case complete(draining: [PendingCall]), fail(draining: [PendingCall]) }

    private var state = State.unconfigured

    /// The state as events report it to the console.
    var flowState: FlowState {
        switch state {
        case .unconfigured: .unconfigured
        case .configuring(let pending): .configuring(queued: pending.count)
        case .ready: .ready
        case .failed: .failed
        }
    }

    /// A payload-free name for logs: ``flowState``'s wire text.
    var description: String { flowState.rawValue }

    var isReady: Bool { if case .ready = state { true } else { false } }

    /// `setRequestor` began; calls that were waiting on an earlier one keep waiting (it may be called again on
    /// returning to the foreground).
    mutating func setRequestorStarted() {
        switch state {
        case .configuring: break  // A second setRequestor while the first runs: keep the queue; the latest wins.
        case .unconfigured, .ready, .failed: state = .configuring(pending: [])
        }
    }

    mutating func call(_ call: PendingCall) -> CallAction {
        switch state {
        case .unconfigured, .failed: return .fail(call)
        case .configuring(var pending):
            pending.append(call)
            state = .configuring(pending: pending)
            return .enqueue
        case .ready: return .run(call)
        }
    }

    mutating func configurationFinished(success: Bool) -> FinishedAction {
        guard case .configuring(let pending) = state else {
            preconditionFailure("Invalid state: configuration finished while \(description)")
        }
        state = success ? .ready : .failed
        return success ? .complete(draining: pending) : .fail(draining: pending)
    }
}
