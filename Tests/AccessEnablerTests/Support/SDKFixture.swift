import AccessEnabler
import Foundation
import MicroHTTP
import PassBackend
import PassProtocol
import PassSimulator
import PassStorage
import PassTestSupport
import Testing

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

    /// An app on this simulated device with the device ID its platform computes (``DeviceIdentity``).
    func simulatedApp(
        bundleID: String, team: String, platform: Platform = .iOS, osVersion: String? = nil, sdkRelease: SDKRelease = .current,
        configure: (inout AccessEnablerConfiguration) -> Void = { _ in }
    ) throws -> TestApp {
        let identity = AppIdentity(bundleID: bundleID, teamID: team, platform: platform)
        var (configuration, _) = try AccessEnablerConfiguration.simulated(
            app: identity, device: folder, osVersion: osVersion, sdkRelease: sdkRelease, serviceProvider: serviceProvider)
        configuration.now = { [service] in service.now() }
        configure(&configuration)
        let delegate = RecordingDelegate()
        return TestApp(enabler: AccessEnabler(configuration: configuration, delegate: delegate, statusDelegate: delegate, logger: TestServer.logger),
                       delegate: delegate, configuration: configuration)
    }

    /// An app on this device: its AccessEnabler and a recording delegate.
    func app(
        bundleID: String = "com.example.news.ios", team: String = "TEAM1", platform: Platform = .iOS,
        deviceID: String = "device-1", configure: (inout AccessEnablerConfiguration) -> Void = { _ in }
    ) throws -> TestApp {
        let identity = AppIdentity(bundleID: bundleID, teamID: team, platform: platform)
        let storage = platform == .iOS ? try folder.teamShared(teamID: team) : try folder.appPrivate(bundleID: bundleID)
        var configuration = AccessEnablerConfiguration(
            app: identity, deviceID: deviceID, storage: storage,
            storageDomain: platform == .iOS ? "team \(team)" : "app \(bundleID)", defaultServiceProvider: serviceProvider)
        configuration.now = { [service] in service.now() }
        configure(&configuration)
        let delegate = RecordingDelegate()
        return TestApp(enabler: AccessEnabler(configuration: configuration, delegate: delegate, statusDelegate: delegate, logger: TestServer.logger),
                       delegate: delegate, configuration: configuration)
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
