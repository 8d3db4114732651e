import AccessEnabler
import Foundation

/// Where an app instance's flow stands, derived from its events alone, so it works the same for the console's own
/// demo apps and for apps in other processes that report to it. Pure: feed events in order with ``apply(_:)``.
///
/// The steps are the seeds' authentication flow as people draw it: setRequestor pending → queued calls →
/// provider picker → MVPD login → redirect → handleExternalURL → token → status.
struct FlowProgress: Encodable, Sendable, Equatable {
    struct Step: Encodable, Sendable, Equatable {
        var id: String
        var label: String
    }

    static let steps: [Step] = [
        Step(id: "requestor", label: "setRequestor (configuration)"),
        Step(id: "queued", label: "queued calls"),
        Step(id: "picker", label: "provider picker"),
        Step(id: "login", label: "MVPD login"),
        Step(id: "redirect", label: "redirect"),
        Step(id: "handleExternalURL", label: "handleExternalURL"),
        Step(id: "token", label: "token fetched"),
        Step(id: "status", label: "status delivered"),
    ]

    var steps: [Step] = FlowProgress.steps
    /// The lit step; `nil` before setRequestor and while idle.
    var current: String?
    /// When the flow entered ``current``.
    var since: Date?
    /// Calls made while setRequestor was in flight, waiting for it (the call queue).
    var queued: [String] = []
    /// A sentence about the current step (the login URL, the status and error code, the registration code).
    var detail: String?
    /// The registration code a tvOS app shows, while it polls.
    var regcode: String?

    /// Moves the flow on by one event.
    mutating func apply(_ event: EntitlementEvent) {
        switch event.kind {
        case .apiCall(let method, let arguments):
            let call = arguments.isEmpty ? method.rawValue : "\(method.rawValue)(\(arguments.sorted { $0.key < $1.key }.map(\.value).joined(separator: ", ")))"
            if method == .setRequestor {
                queued = []
                move("requestor", at: event, detail: "Loading the configuration of \(arguments["requestorID"] ?? event.requestorID ?? "the Programmer").")
            } else if current == "requestor" || current == "queued" {
                queued.append(call)
                move("queued", at: event, detail: "\(queued.count) call(s) wait for setRequestorComplete.")
            } else if method == .handleExternalURL {
                move("redirect", at: event, detail: "The login ended at the app's redirect URL.")
                move("handleExternalURL", at: event, detail: "The app handed the redirect URL to the SDK.")
            }
        case .stateChanged(.requestor, _, let to), .stateChanged(.authentication, _, let to):
            guard let name = to.name else { break }
            let step = Self.step(litBy: name)
            switch to {
            case .ready, .failed:
                queued = []
                if current == "requestor" || current == "queued" {
                    move(step, at: event, detail: to == .failed ? "setRequestor failed." : "Ready; waiting for the app's next call.")
                }
            case .pickingProvider:
                move(step, at: event, detail: "The app shows the provider picker.")
            case .awaitingLogin:
                move(step, at: event, detail: "Waiting for the user at the MVPD's login page.")
            case .polling(_, let code):
                regcode = code
                move(step, at: event, detail: "The TV shows the code \(code); waiting for the sign-in on a second screen.")
            case .fetchingToken:
                regcode = nil
                move(step, at: event, detail: "Fetching the authentication token.")
            case .idle:
                regcode = nil
            case .unconfigured, .configuring, .loggingOut, .other: break
            }
        case .callback(let callback):
            switch callback {
            case .setRequestorComplete(let status) where queued.isEmpty:
                move(nil, at: event, detail: status == 1 ? "Ready; waiting for the app's next call." : "setRequestor failed.")
            case .presentTvProviderDialog:
                move("picker", at: event, detail: "The device's Apple TV provider dialog is up (Apple single sign-on).")
            case .displayProviderDialog:
                move("picker", at: event, detail: "The app shows the provider picker.")
            case .navigateToUrl(let url, _) where current == "login" || current == "picker":
                move("login", at: event, detail: "Login page: \(url)")
            case .setAuthenticationStatus(let status, let code):
                move("status", at: event, detail: status == 1 ? "Authenticated (status 1)." : "Not authenticated (status 0\(code.flatMap { $0.isEmpty ? nil : ", \($0)" } ?? "")).")
            case .setToken(_, let resource):
                move("status", at: event, detail: "Authorized for \(resource): media token delivered.")
            case .tokenRequestFailed(let resource, let code, _):
                move("status", at: event, detail: "Authorization of \(resource) failed: \(code).")
            default: break
            }
        default: break
        }
    }

    private mutating func move(_ step: String?, at event: EntitlementEvent, detail: String) {
        if step != current { since = event.timestamp }
        current = step
        self.detail = detail
    }

    /// The diagram step each of the SDK's states lights (nil: none; `ready` and `failed` end the setRequestor
    /// steps). The console's one table of flow states: exhaustive, so a state added to ``FlowState`` fails the build
    /// here until the console places it.
    static func step(litBy state: FlowState.Name) -> String? {
        switch state {
        case .pickingProvider: "picker"
        case .awaitingLogin, .polling: "login"
        case .fetchingToken: "token"
        case .unconfigured, .configuring, .ready, .failed, .idle, .loggingOut: nil
        }
    }

    /// The progress after `events`.
    static func replay(_ events: some Sequence<EntitlementEvent>) -> FlowProgress {
        var progress = FlowProgress()
        for event in events { progress.apply(event) }
        return progress
    }
}
