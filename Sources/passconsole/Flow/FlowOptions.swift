import AccessEnabler
import ArgumentParser
import Foundation
import PassProtocol
import PassSimulator

/// The options every `passconsole flow` subcommand shares: the backend, the Programmer, the subscriber, the app
/// and the simulated device it runs on.
struct FlowOptions: ParsableArguments {
    @Option(help: "The backend's base URL (the service provider is <backend>/adobe-services).")
    var backend = "http://127.0.0.1:8081"

    @Option(help: "The Programmer (requestor ID) passed to setRequestor.")
    var requestor = "REF30"

    @Option(help: "The MVPD to pick when the SDK shows the provider picker (displayProviderDialog).")
    var mvpd: String?

    @Option(help: "The subscriber's username on the MVPD's login page.")
    var user: String?

    @Option(help: "The subscriber's password on the MVPD's login page.")
    var password: String?

    @Option(name: .customLong("resource"), help: "A resource ID (repeat for several).")
    var resources: [String] = []

    @Option(help: "The simulated app's platform: ios or tvos.")
    var platform: Platform = .iOS

    @Option(name: .customLong("bundle-id"), help: "The simulated app's bundle ID.")
    var bundleID = "com.example.news.ios"

    @Option(help: "The simulated app's team (bundle seed) ID; iOS apps of one team share tokens.")
    var team = "TEAM1234"

    @Option(
        name: .customLong("os-version"),
        help: "The device's OS version (default: the stored one; 17.2 for a new device). Changing it upgrades the device.")
    var osVersion: String?

    @Option(
        name: .customLong("sdk-release"),
        help: "The AccessEnabler release whose storage rules the app follows: 1.8 (default: the token sanitizer removes tokens of every other device ID, so apps of one team with other bundle-ID prefixes wipe each other's sign-in) or 1.7 (only tokens of the pre-iOS 7 device ID).")
    var sdkRelease: SDKRelease = .current

    @Option(
        name: .customLong("device"),
        help: ArgumentHelp(
            "The simulated device's folder: its hardware profile (made on first use) and all its storage.",
            discussion: "Two runs with the same folder are two apps on one phone."))
    var device = "~/.passconsole/device"

    @Option(
        name: .customLong("protocol"),
        help: ArgumentHelp(
            "The protocol the SDK speaks: sdk (the seeds': /adobe-services, REST v1 for the tvOS code) or v2 (REST API v2).",
            discussion: "The same calls and callbacks on both (docs/sdk.md, \"The SDK on REST API v2\"). On v2 the app registers "
                + "with --software-statement and keeps its client credentials in the device folder (the app's private storage)."))
    var wire: EntitlementProtocol = .sdk

    @Option(
        name: .customLong("software-statement"),
        help: "REST API v2: the registered app's software statement (default: the demo app of --requestor in Config/demo.json).")
    var softwareStatement: String?

    @Option(name: .customLong("public-key"), help: "tvOS: the registered app's public key (setRequestor; unused with --protocol v2).")
    var publicKey: String?

    @Option(help: "tvOS: the registered app's secret (setRequestor; unused with --protocol v2).")
    var secret: String?

    @Option(help: "Seconds to wait for the flow to end (default 30; tvOS login 1800).")
    var timeout: Double?

    @Option(
        name: .customLong("visitor-id"),
        help: ArgumentHelp(
            "The Experience Cloud visitor ID the app sets (setOptions visitorID) before setRequestor.",
            discussion: "Sent with every request as AP-Visitor-Identifier; the backend records it, the console finds the session by it."))
    var visitorID: String?

    @Flag(
        name: .customLong("force-authn"),
        help: "login, authorize (with --user) and cancel: getAuthentication(forceAuthn: true), sign in again despite a valid login.")
    var forceAuthn = false

    @Option(name: .customLong("report-to"), help: "A PassConsole URL (http://127.0.0.1:8080) to stream this app's events to.")
    var reportTo: String?

    @Option(name: .customLong("report-token"), help: "The console's access token, when it listens beyond loopback.")
    var reportToken: String?

    @Option(
        name: .customLong("apple-sso"),
        help: ArgumentHelp(
            "The device's Apple TV Provider: pick:MVPD, other, cancel, none or denied (stored in the device folder).",
            discussion: "What the user does in the Apple dialog (presentTvProviderDialog), shown when the Programmer has an "
                + "MVPD with Apple SSO: pick:MVPD signs the device in at that MVPD with --user/--password (without them "
                + "the SDK opens the MVPD's login page; on tvOS it shows a registration code), other picks \"Other TV "
                + "Provider\", cancel closes the dialog, none means not signed in to any TV provider, denied that the user denied the app "
                + "access to the TV provider (VSA403). Kept for later runs "
                + "on the same --device."))
    var appleSSO: String?

    @Flag(
        name: .customLong("handle-svc"),
        help: ArgumentHelp(
            "The app presents SFSafariViewController itself (setOptions handleSVC = true).",
            discussion: "An MVPD that requires it gets navigateToUrl(_:useSVC: true) and signs in through Safari, "
                + "returning to the app's custom scheme."))
    var handleSVC = false

    @Flag(help: "Also print every SDK event as a JSON line {\"event\": …}.")
    var events = false

    func validate() throws {
        if let visitorID, let problem = VisitorID.problem(visitorID) { throw ValidationError("--visitor-id \(problem)") }
        guard let url = URL(string: backend), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw ValidationError("--backend must be an http(s) URL such as http://127.0.0.1:8081, not \(backend).")
        }
        if let reportTo, URL(string: reportTo)?.host == nil || !(reportTo.hasPrefix("http://") || reportTo.hasPrefix("https://")) {
            throw ValidationError("--report-to must be the console's URL, such as http://127.0.0.1:8080, not \(reportTo).")
        }
        if (user == nil) != (password == nil) {
            throw ValidationError("Give --user and --password together.")
        }
        if let timeout, !(timeout > 0) {
            throw ValidationError("--timeout must be a positive number of seconds.")
        }
        if (publicKey == nil) != (secret == nil) {
            throw ValidationError("Give --public-key and --secret together.")
        }
        _ = try tvProvider()
    }

    /// `--apple-sso` as the device's setting (`pick:` takes `--user`/`--password`); `nil` without the option.
    func tvProvider() throws(ValidationError) -> TVProviderSetting? {
        guard let appleSSO else { return nil }
        do {
            return try TVProviderSetting(argument: appleSSO, username: user, password: password)
        } catch {
            throw ValidationError("--apple-sso: \(error.description)")
        }
    }

    /// `--device` with `~` expanded, as an absolute file URL.
    var deviceURL: URL {
        var path = device
        if path == "~" || path.hasPrefix("~/") {
            let home = ProcessInfo.processInfo.environment["HOME"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser
            path = home.path + String(path.dropFirst())
        }
        return URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
    }

    /// The service provider base: `<backend>/adobe-services`.
    var serviceProvider: URL {
        var base = backend
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + "/adobe-services")!
    }

    /// The demo apps' software statements (Config/demo.json), by requestor.
    static let demoSoftwareStatements = [
        "REF30": "demo-software-statement", "SPORTS1": "sports1-software-statement", "KIDSNET": "kidsnet-software-statement",
    ]

    /// The software statement the app registers with on v2: `--software-statement`, else the demo app's of `--requestor`.
    var statement: String? { softwareStatement ?? Self.demoSoftwareStatements[requestor] }

    /// The credentials, when both were given.
    var credentials: (user: String, password: String)? {
        guard let user, let password else { return nil }
        return (user, password)
    }
}

extension Platform: ExpressibleByArgument {
    /// `--platform ios` or `tvos`, in any case.
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
    /// The values `--help` lists.
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

extension SDKRelease: ExpressibleByArgument {}

extension EntitlementProtocol: ExpressibleByArgument {
    /// The values `--help` lists.
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
