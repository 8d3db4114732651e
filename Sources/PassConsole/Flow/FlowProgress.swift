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
        case .apiCall(let name, let arguments):
            let call = arguments.isEmpty ? name : "\(name)(\(arguments.sorted { $0.key < $1.key }.map(\.value).joined(separator: ", ")))"
            if name == "setRequestor" {
                queued = []
                move("requestor", at: event, detail: "Loading the configuration of \(arguments["requestorID"] ?? event.requestorID ?? "the Programmer").")
            } else if current == "requestor" || current == "queued" {
                queued.append(call)
                move("queued", at: event, detail: "\(queued.count) call(s) wait for setRequestorComplete.")
            } else if name == "handleExternalURL" {
                move("redirect", at: event, detail: "The login ended at the app's redirect URL.")
                move("handleExternalURL", at: event, detail: "The app handed the redirect URL to the SDK.")
            }
        case .stateChanged(let flow, _, let to):
            if flow == "requestor", to.hasPrefix("ready") || to.hasPrefix("failed") {
                queued = []
                if current == "requestor" || current == "queued" {
                    move(nil, at: event, detail: to.hasPrefix("failed") ? "setRequestor failed." : "Ready; waiting for the app's next call.")
                }
            } else if flow == "authentication" {
                if to == "pickingProvider" {
                    move("picker", at: event, detail: "The app shows the provider picker.")
                } else if to.hasPrefix("awaitingLogin") {
                    move("login", at: event, detail: "Waiting for the user at the MVPD's login page.")
                } else if to.hasPrefix("polling") {
                    regcode = Self.code(in: to)
                    move("login", at: event, detail: "The TV shows the code \(regcode ?? "?"); waiting for the sign-in on a second screen.")
                } else if to.hasPrefix("fetchingToken") {
                    regcode = nil
                    move("token", at: event, detail: "Fetching the authentication token.")
                } else if to == "idle" {
                    regcode = nil
                }
            }
        case .callback(let callback):
            switch callback {
            case .setRequestorComplete(let status) where queued.isEmpty:
                move(nil, at: event, detail: status == 1 ? "Ready; waiting for the app's next call." : "setRequestor failed.")
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

    /// `CODE` from `polling(MVPD, CODE)`.
    static func code(in state: String) -> String? {
        guard let open = state.firstIndex(of: "("), let close = state.lastIndex(of: ")") else { return nil }
        let inside = state[state.index(after: open)..<close].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return inside.count == 2 ? inside[1] : nil
    }

    /// The progress after `events`.
    static func replay(_ events: some Sequence<EntitlementEvent>) -> FlowProgress {
        var progress = FlowProgress()
        for event in events { progress.apply(event) }
        return progress
    }
}
