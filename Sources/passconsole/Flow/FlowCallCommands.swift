import AccessEnabler
import ArgumentParser
import Foundation

/// `passconsole flow cancel`: the user backs out of a sign-in.
struct FlowCancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "getAuthentication, then the user cancels (setSelectedProvider(nil)) at the picker or on the login page.",
        discussion: """
            Succeeds on setAuthenticationStatus(0, "Provider Not Selected Error"). Cancelling keeps the other logins \
            on the device and erases only this Programmer's MVPD (seed 002). --at login needs --mvpd (the provider \
            whose login page, or on tvOS whose registration code, the user closes).
            """)

    @OptionGroup var options: FlowOptions
    @Option(help: "Where the user cancels: picker or login.")
    var at: FlowCancelPoint = .picker

    func validate() throws {
        if at == .login, options.mvpd == nil { throw ValidationError("--at login needs --mvpd: the provider whose login page the user closes.") }
    }

    func run() async throws { try await options.run(.cancel(at: at)) }
}

/// `passconsole flow check-authorization`.
struct FlowCheckAuthorizationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-authorization",
        abstract: "checkAuthorization for every --resource: a media token without ever starting a login.",
        discussion: """
            Succeeds when every resource gets setToken. Not signed in: tokenRequestFailed with User Not Authenticated \
            Error and a non-zero exit status (getAuthorization, `flow authorize`, would open the picker instead).
            """)

    @OptionGroup var options: FlowOptions

    func validate() throws {
        if options.resources.isEmpty { throw ValidationError("Name at least one --resource to check.") }
    }

    func run() async throws { try await options.run(.checkAuthorization(options.uniqueResources)) }
}

/// `passconsole flow selected-provider`.
struct FlowSelectedProviderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selected-provider",
        abstract: "getSelectedProvider: the MVPD this Programmer's app is signed in with (or was picked).",
        discussion: "Succeeds when selectedProvider names an MVPD; {\"mvpd\": null} makes the exit status non-zero.")

    @OptionGroup var options: FlowOptions

    func run() async throws { try await options.run(.selectedProvider) }
}
