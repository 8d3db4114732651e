import AccessEnabler
import ArgumentParser
import Foundation
import PassProtocol

/// `passconsole flow`: entitlement flows from the terminal, as a simulated app on a simulated device.
struct FlowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flow",
        abstract: "Run an entitlement flow as a simulated app on a simulated device, printing every callback as JSON.",
        discussion: """
            Each run is one app launch: setRequestor, then the intent, until its terminal callback. Every callback \
            is printed as one JSON line ({"callback": name, <parameter>: value, …}); the exit status is 0 when \
            the intent succeeded. --device DIR is the simulated device (hardware profile and all storage): two \
            runs with the same DIR are two apps on one phone, so a login persists to the next run.

            Example (against `make run`):
              passconsole flow authorize --mvpd Dish --user carol --password carol123 --resource news
            """,
        subcommands: [
            FlowCheckCommand.self, FlowLoginCommand.self, FlowAuthorizeCommand.self, FlowPreauthorizeCommand.self,
            FlowMetadataCommand.self, FlowLogoutCommand.self,
            FlowCancelCommand.self, FlowCheckAuthorizationCommand.self, FlowSelectedProviderCommand.self,
        ])
}

extension FlowOptions {
    /// Builds the app, runs `intent`, exits non-zero when it did not succeed.
    func run(_ intent: FlowIntent) async throws {
        let output = FlowOutput()
        let app: FlowApp
        do { app = try FlowApp(options: self, player: intent.player) } catch {
            output.error("The simulated device at \(deviceURL.path) cannot be used: \(error)")
            throw ExitCode.failure
        }
        guard await app.run(intent, output: output) else { throw ExitCode.failure }
    }

    /// `--resource` values without repeats, in the order given.
    var uniqueResources: [String] {
        var seen = Set<String>()
        return resources.filter { seen.insert($0).inserted }
    }
}

struct FlowCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "checkAuthentication: succeeds when the app finds a valid login (status 1).")

    @OptionGroup var options: FlowOptions

    func run() async throws { try await options.run(.check) }
}

struct FlowLoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "getAuthentication through the picker (--mvpd) and the MVPD's login page (--user, --password).",
        discussion: """
            On tvOS the SDK shows a registration code (a status callback) and the run waits — 1800 s unless \
            --timeout says otherwise — while a person activates it on the backend's /activate page.
            """)

    @OptionGroup var options: FlowOptions

    func run() async throws { try await options.run(.login) }
}

struct FlowAuthorizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authorize",
        abstract: "getAuthorization for every --resource (logging in first when --user/--password are given).",
        discussion: "Succeeds when every resource gets setToken; a tokenRequestFailed makes the exit status non-zero.")

    @OptionGroup var options: FlowOptions

    func validate() throws {
        if options.resources.isEmpty { throw ValidationError("Name at least one --resource to authorize.") }
    }

    func run() async throws { try await options.run(.authorize(options.uniqueResources)) }
}

struct FlowPreauthorizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preauthorize",
        abstract: "checkPreauthorizedResources for the --resource list: succeeds when preauthorizedResources arrives.")

    @OptionGroup var options: FlowOptions

    func validate() throws {
        if options.resources.isEmpty { throw ValidationError("Name at least one --resource to preauthorize.") }
    }

    func run() async throws { try await options.run(.preauthorize(options.uniqueResources)) }
}

struct FlowMetadataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metadata",
        abstract: "getMetadata: authN expiry, authZ expiry (--resource), the device ID, or a user-metadata item (--name).",
        discussion: "Succeeds when setMetadataStatus carries a value.")

    enum Key: String, ExpressibleByArgument, CaseIterable {
        case authn, authz, device, user

        /// The getMetadata op code.
        var opCode: Int {
            switch self {
            case .authn: PassConstants.METADATA_AUTHENTICATION
            case .authz: PassConstants.METADATA_AUTHORIZATION
            case .device: PassConstants.METADATA_DEVICE_ID
            case .user: PassConstants.METADATA_USER_META
            }
        }
    }

    @OptionGroup var options: FlowOptions
    @Option(help: "What to ask for: authn, authz (with one --resource), device or user (with --name).")
    var key: Key
    @Option(help: "The user-metadata item for --key user, e.g. zip, householdID, maxRating.")
    var name: String?

    func validate() throws {
        switch key {
        case .authz where options.resources.count != 1:
            throw ValidationError("--key authz needs exactly one --resource.")
        case .user where name == nil:
            throw ValidationError("--key user needs --name (e.g. zip, householdID, maxRating).")
        default: break
        }
    }

    func run() async throws {
        var arguments: [String: String] = [:]
        switch key {
        case .authz: arguments[PassConstants.METADATA_RESOURCE_ID_KEY] = options.resources.first
        case .user: arguments[PassConstants.METADATA_USER_META_KEY] = name
        case .authn, .device: break
        }
        try await options.run(.metadata(opCode: key.opCode, arguments: arguments))
    }
}

struct FlowLogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "logout: clears the app's storage and follows the logout chain; succeeds on status 0.")

    @OptionGroup var options: FlowOptions

    func run() async throws { try await options.run(.logout) }
}
