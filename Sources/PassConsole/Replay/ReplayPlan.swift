import AccessEnabler
import Foundation
import MicroHTTP
import PassProtocol

/// What a recorded session did, as the calls to make again: the app, its Programmer, and the API calls after
/// `setRequestor` in their order. Pure: events in, a plan (or a refusal in words) out.
///
/// A recorded `handleExternalURL` stands for the person at the MVPD's login page: without `error=` it becomes a
/// sign-in on the replay's own login page (credentials are never recorded); with `error=` (the person cancelled)
/// the same URL is handed back, so the replay cancels where the recording did.
struct ReplayPlan: Sendable, Equatable {
    struct Step: Sendable, Equatable {
        /// The AccessEnabler method (`getAuthorization`), or `signIn` for a completed MVPD login.
        var method: String
        var arguments: [String: String]
    }

    var app: AppIdentity
    var requestorID: String
    var steps: [Step]
    /// The MVPD logins of the recording, in order: each becomes a `signIn` step (its `mvpd` argument names the MVPD).
    var logins: [Login]
    /// Resources the recording authorized (to pick a demo subscriber entitled to them).
    var resources: [String]
    /// Calls of the recording that are not replayed, in words.
    var skipped: [String]

    /// A completed MVPD login of the recording.
    struct Login: Sendable, Equatable {
        /// The MVPD, when the recording says which (the event's MVPD, else the last `setSelectedProvider`).
        var mvpd: String?
        /// The user the login signed in as, as the recording knows it: the user ID (authN token GUID) hashed as the
        /// SDK's tracking reports it after the sign-in; nil when no tracking event followed.
        var userHash: String?
    }

    /// The distinct MVPDs the recording signed in with, in order.
    var loginMvpds: [String] {
        logins.compactMap(\.mvpd).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    init(events: [EntitlementEvent]) throws(HTTPError) {
        let calls = events.enumerated().compactMap { index, event -> (method: APIMethod, arguments: [String: String], mvpd: String?, index: Int)? in
            guard case .apiCall(let method, let arguments) = event.kind else { return nil }
            return (method, arguments, event.mvpdID, index)
        }
        guard let first = events.first else {
            throw HTTPError(.conflict, code: "nothing_to_replay", message: "This session has no events.")
        }
        guard first.app.platform != .tvOS else {
            throw HTTPError(.conflict, code: "replay_needs_second_screen",
                message: "tvOS sessions cannot be replayed: their sign-in needs a person to type the code on a second screen.",
                detail: "Replay an iOS session, or run the tvOS app from the Flows page and activate its code.")
        }
        guard let setRequestor = calls.first(where: { $0.method == .setRequestor }),
            let requestorID = setRequestor.arguments["requestorID"] ?? first.requestorID, !requestorID.isEmpty
        else {
            throw HTTPError(.conflict, code: "no_set_requestor",
                message: "This session never called setRequestor, so there is nothing to start a replay from.",
                detail: "Sessions reported by another process start with setRequestor; this one may have been cut by retention.")
        }
        app = first.app
        self.requestorID = requestorID
        var steps: [Step] = []
        var skipped: [String] = []
        var logins: [Login] = []
        var resources: [String] = []
        var afterSetRequestor = false
        for call in calls {
            if Self.treatment(of: call.method) == .start {
                if afterSetRequestor { skipped.append("a second setRequestor (the replay keeps the first)") }
                afterSetRequestor = true
                continue
            }
            guard afterSetRequestor else {
                skipped.append("\(call.method.rawValue) before setRequestor")
                continue
            }
            switch Self.treatment(of: call.method) {
            case .start: break
            case .login:
                let url = call.arguments["url"] ?? ""
                let cancelled = URLComponents(string: url)?.queryItems?.contains { $0.name == "error" } == true
                if cancelled {
                    steps.append(Step(method: call.method.rawValue, arguments: ["url": url]))
                } else if !Self.isLogoutEnd(after: steps) {
                    let mvpd = call.mvpd ?? Self.selectedMvpd(in: steps)
                    steps.append(Step(method: "signIn", arguments: mvpd.map { ["mvpd": $0] } ?? [:]))
                    logins.append(Login(mvpd: mvpd, userHash: mvpd.flatMap { Self.userHash(after: call.index, mvpd: $0, in: events) }))
                }
            case .skip:
                skipped.append(call.method.rawValue)
            case .replay:
                if call.method == .getAuthorization || call.method == .checkAuthorization, let resource = call.arguments["resource"],
                    !resources.contains(resource)
                {
                    resources.append(resource)
                }
                steps.append(Step(method: call.method.rawValue, arguments: call.arguments))
            }
        }
        self.steps = steps
        self.skipped = skipped
        self.logins = logins
        self.resources = resources
    }

    /// What a replay does with a recorded call.
    enum Treatment: Equatable {
        /// `setRequestor`: the replay starts from the first.
        case start
        /// `handleExternalURL`: the person at the MVPD's login page (a sign-in, or the same cancel URL).
        case login
        /// A method an app's code calls: made again (``ConsoleApp/callable`` holds each).
        case replay
        /// Not made again.
        case skip
    }

    /// The console's table of the SDK's methods for a replay. Exhaustive: a method added to ``APIMethod`` fails the
    /// build here until the replay says what to do with it.
    static func treatment(of method: APIMethod) -> Treatment {
        switch method {
        case .setRequestor: .start
        case .handleExternalURL: .login
        case .checkAuthentication, .getAuthentication, .checkAuthorization, .getAuthorization, .checkPreauthorizedResources,
            .getMetadata, .setSelectedProvider, .getSelectedProvider, .logout:
            .replay
        case .setOptions, .other: .skip
        }
    }

    /// Whether the last step was `logout`: its `handleExternalURL` ends the logout chain, which the replay's own
    /// logout follows by itself.
    private static func isLogoutEnd(after steps: [Step]) -> Bool { steps.last?.method == APIMethod.logout.rawValue }

    /// The hashed user ID of the first successful authentication with `mvpd` the SDK tracked after event `index`.
    private static func userHash(after index: Int, mvpd: String, in events: [EntitlementEvent]) -> String? {
        for event in events[(index + 1)...] {
            guard case .tracking(.authenticationDetection, let data) = event.kind, data.count > 2,
                data[0] == Tracking.TRACKING_YES, data[1] == mvpd, data[2] != Tracking.TRACKING_NONE
            else { continue }
            return data[2]
        }
        return nil
    }

    /// The MVPD of the latest `setSelectedProvider` among `steps`.
    private static func selectedMvpd(in steps: [Step]) -> String? {
        steps.last { $0.method == APIMethod.setSelectedProvider.rawValue }?.arguments["mvpd"].flatMap { $0 == "nil" ? nil : $0 }
    }
}
