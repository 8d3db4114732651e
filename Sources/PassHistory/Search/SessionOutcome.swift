import PassEvents
import Foundation

/// How an app's run stands, in the words of a support ticket: signed in, denied, signed out, stuck, error.
///
/// The one rule for it is ``Tracker``: the history folds every session's events through it as they are stored and
/// keeps the result on the session row, so a list of thousands of sessions shows each one's outcome without reading
/// their events.
public enum SessionOutcome: String, Codable, Sendable, CaseIterable {
    /// Nothing decisive yet (configured, no sign-in answer).
    case started
    /// A flow waits on a person or the network (provider picker, MVPD login, second-screen code, token fetch).
    case inProgress
    /// Waited longer than ``Tracker/stuckAfter`` on the same step.
    case stuck
    /// Authenticated (the last answer was status 1 or a media token).
    case signedIn
    /// The MVPD refused an authorization (`User Not Authorized`).
    case denied
    /// Not signed in: logged out, no token, or the user cancelled.
    case signedOut
    /// The last answer was an error: configuration failed, the service answered an error or did not answer.
    case error

    /// The words a list shows.
    public var label: String {
        switch self {
        case .started: "started"
        case .inProgress: "in progress"
        case .stuck: "stuck"
        case .signedIn: "signed in"
        case .denied: "denied"
        case .signedOut: "signed out"
        case .error: "error"
        }
    }

    /// The fold over a session's events, in the order they happened. Pure.
    public struct Tracker: Sendable, Equatable {
        /// How long a flow may wait on one step before the session counts as stuck (the Flows page's threshold).
        public static let stuckAfter: TimeInterval = 30

        /// The outcome of the last decisive answer.
        public var settled: SessionOutcome
        /// Since when a flow has been waiting, if it is.
        public var waitingSince: Date?

        /// A session with no events yet.
        public init(settled: SessionOutcome = .started, waitingSince: Date? = nil) {
            self.settled = settled
            self.waitingSince = waitingSince
        }

        /// The outcome as of `now`: waiting turns into stuck after ``stuckAfter``.
        public func outcome(at now: Date) -> SessionOutcome {
            guard let waitingSince else { return settled }
            return now.timeIntervalSince(waitingSince) > Self.stuckAfter ? .stuck : .inProgress
        }

        /// Moves the outcome on by one event.
        public mutating func apply(_ event: EntitlementEvent) {
            switch event.kind {
            case .stateChanged(.authentication, _, let to), .stateChanged(.requestor, _, let to):
                // Each name belongs to one flow (`failed` to the requestor's, the waits to authentication's).
                guard let name = to.name else { break }
                switch name {
                case .pickingProvider, .awaitingLogin, .polling, .fetchingToken:
                    if waitingSince == nil { waitingSince = event.timestamp }
                case .idle: waitingSince = nil
                case .failed: settle(.error)
                case .unconfigured, .configuring, .ready, .loggingOut: break
                }
            case .callback(let callback):
                switch callback {
                case .setRequestorComplete(let status) where status != 1: settle(.error)
                case .setAuthenticationStatus(1, _): settle(.signedIn)
                case .setAuthenticationStatus(_, let code): settle(Self.notSignedIn(code))
                case .setToken: settle(.signedIn)
                case .tokenRequestFailed(_, let code, _): settle(Self.refused(code))
                default: break
                }
            case .error: settle(.error)
            default: break
            }
        }

        private mutating func settle(_ outcome: SessionOutcome) {
            settled = outcome
            waitingSince = nil
        }

        /// Status 0: not signed in (no token, logged out, cancelled), or an error when the code says the service failed.
        static func notSignedIn(_ code: String?) -> SessionOutcome {
            guard let code, !code.isEmpty else { return .signedOut }
            let quiet = [EntitlementError.Code.userNotAuthenticated, .providerNotSelected].map { $0.rawValue.lowercased() }
            return quiet.contains(code.lowercased()) ? .signedOut : .error
        }

        /// An authorization refused: the MVPD's denial (also the "handled" one), not signed in, or an error.
        static func refused(_ code: String) -> SessionOutcome {
            let lower = code.lowercased()
            if lower.hasSuffix(EntitlementError.Code.userNotAuthorized.rawValue.lowercased()) { return .denied }
            if lower == EntitlementError.Code.userNotAuthenticated.rawValue.lowercased() { return .signedOut }
            return .error
        }
    }
}
