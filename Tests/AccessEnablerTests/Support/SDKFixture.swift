import AccessEnabler
import Foundation
import MicroHTTP
import PassBackend
import PassProtocol
import PassSimulator
import PassStorage
import PassTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real PassBackend (demo data) on 127.0.0.1 and simulated apps on a simulated device folder.
struct SDKFixture {
    let service: BackendService
    let baseURL: String
    let folder: DeviceFolder

    static let configPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config/demo.json").path

    /// Runs `body` with a fresh backend (the demo data, or `configuration`) and a fresh device folder.
    static func with(configuration: BackendConfiguration? = nil, _ body: (SDKFixture) async throws -> Void) async throws {
        let configuration = try configuration ?? BackendConfiguration.load(path: configPath)
        let service = BackendService(configuration: configuration, logger: TestServer.logger)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try await TestServer.with(PassBackend(service: service)) { server, _ async throws in
            try await body(SDKFixture(service: service, baseURL: server.baseURL, folder: DeviceFolder(root: root)))
        }
    }

    var serviceProvider: URL { URL(string: baseURL + "/adobe-services")! }

    /// `POST` of a JSON body to one of the backend's `/admin` routes (what an operator's curl does); its status.
    @discardableResult
    func admin(_ path: String, json: String) async throws -> Int {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(json.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    /// An app on this simulated device with the device ID its platform computes (``DeviceIdentity``).
    func simulatedApp(
        bundleID: String, team: String, platform: Platform = .iOS, osVersion: String? = nil, sdkRelease: SDKRelease = .current,
        wire: EntitlementProtocol = .sdk, requestor: String? = nil, configure: (inout AccessEnablerConfiguration) -> Void = { _ in }
    ) throws -> TestApp {
        let identity = AppIdentity(bundleID: bundleID, teamID: team, platform: platform)
        var (configuration, _) = try AccessEnablerConfiguration.simulated(
            app: identity, device: folder, osVersion: osVersion, sdkRelease: sdkRelease, serviceProvider: serviceProvider)
        configuration.now = { [service] in service.now() }
        try Self.speak(wire, &configuration, requestor: requestor, folder: folder)
        configure(&configuration)
        let delegate = RecordingDelegate()
        return TestApp(enabler: AccessEnabler(configuration: configuration, delegate: delegate, statusDelegate: delegate, logger: TestServer.logger),
                       delegate: delegate, configuration: configuration)
    }

    /// An app on this device: its AccessEnabler and a recording delegate.
    func app(
        bundleID: String = "com.example.news.ios", team: String = "TEAM1", platform: Platform = .iOS,
        deviceID: String = "device-1", wire: EntitlementProtocol = .sdk, requestor: String? = nil,
        configure: (inout AccessEnablerConfiguration) -> Void = { _ in }
    ) throws -> TestApp {
        let identity = AppIdentity(bundleID: bundleID, teamID: team, platform: platform)
        let storage = platform == .iOS ? try folder.teamShared(teamID: team) : try folder.appPrivate(bundleID: bundleID)
        var configuration = AccessEnablerConfiguration(
            app: identity, deviceID: deviceID, storage: storage,
            storageDomain: platform == .iOS ? "team \(team)" : "app \(bundleID)", defaultServiceProvider: serviceProvider)
        configuration.now = { [service] in service.now() }
        try Self.speak(wire, &configuration, requestor: requestor, folder: folder)
        configure(&configuration)
        let delegate = RecordingDelegate()
        return TestApp(enabler: AccessEnabler(configuration: configuration, delegate: delegate, statusDelegate: delegate, logger: TestServer.logger),
                       delegate: delegate, configuration: configuration)
    }

    /// The path (a prefix) of the call that authorizes REF30, for fault rules: `authorizeDevice`, or v2's decision.
    static func authorizePath(_ wire: EntitlementProtocol, requestor: String = "REF30") -> String {
        wire == .sdk ? "/adobe-services/1.0/authorizeDevice" : "/api/v2/\(requestor)/decisions/authorize/"
    }

    /// The demo apps' software statements (Config/demo.json) by requestor.
    static let softwareStatements = ["REF30": "demo-software-statement", "SPORTS1": "sports1-software-statement", "KIDSNET": "kidsnet-software-statement"]

    /// The requestor an app of the demo speaks for when a test does not say: by its bundle ID's name.
    static func requestor(ofBundleID bundleID: String) -> String {
        bundleID.contains("sports") ? "SPORTS1" : bundleID.contains("kids") ? "KIDSNET" : "REF30"
    }

    /// On v2: the protocol, the app's software statement and its private `rest-v2.json`.
    static func speak(_ wire: EntitlementProtocol, _ configuration: inout AccessEnablerConfiguration, requestor: String?, folder: DeviceFolder) throws {
        configuration.protocol = wire
        guard wire == .restV2 else { return }
        configuration.softwareStatement = softwareStatements[requestor ?? Self.requestor(ofBundleID: configuration.app.bundleID)]
        configuration.registrationStorage = try folder.appPrivate(bundleID: configuration.app.bundleID, name: "rest-v2.json")
    }
}

extension TestApp {
    /// What the app keeps on v2 (its `registrationStorage`).
    func v2State() throws -> V2State {
        try V2State.decode(try configuration.registrationStorage?.read())
    }
}

/// A simulated app: the SDK, its delegate, and the steps a user takes.
struct TestApp {
    let enabler: AccessEnabler
    let delegate: RecordingDelegate
    let configuration: AccessEnablerConfiguration
    let webView = HeadlessWebView()

    /// setRequestor and wait for setRequestorComplete.
    func start(_ requestor: String = "REF30", base: URL) async {
        enabler.setRequestor(requestor, serviceProviders: [base])
        await settle()
    }

    /// Waits until the SDK has handled everything and delivered its callbacks (the configuration call included).
    func settle() async {
        for _ in 0..<200 {
            await enabler.settle()
            let snapshot = await enabler.snapshot()
            if case .configuring = snapshot.requestor { } else { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        await enabler.settle()
    }

    /// checkAuthentication's answer: true for status 1.
    func isAuthenticated() async -> Bool {
        delegate.clear()
        enabler.checkAuthentication()
        await settle()
        return delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: "")
    }

    /// The whole iOS login through the picker and the MVPD's form.
    func login(mvpd: String, username: String, password: String) async throws {
        enabler.getAuthentication()
        await settle()
        enabler.setSelectedProvider(mvpd)
        await settle()
        let url = try #require(delegate.lastURL, "navigateToUrl expected")
        let end = try await webView.signIn(at: url, username: username, password: password)
        enabler.handleExternalURL(end)
        await settle()
    }
}
