import AccessEnabler
import Foundation
import Locking
import PassBackend
import PassConsoleReporter
import PassProtocol
import PassSimulator
import PassStorage
import PassTestSupport
import Testing

/// An app on an AccessEnabler SDK (here the project's own, standing in for the vendor's) whose delegate forwards each
/// callback to the reporter in one line, and which reports each call before making it: the app keeps working as
/// before, and a real console shows the session as the SDK itself would have recorded it.
struct ReporterSDKTests {
    static let configPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config/demo.json").path

    @Test func anAppForwardingItsDelegateShowsInTheConsoleExactlyAsTheSDKRecordsIt() async throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let service = BackendService(configuration: try BackendConfiguration.load(path: Self.configPath), logger: TestServer.logger)
        try await TestServer.with(PassBackend(service: service)) { backend, _ in
            let console = try await RealConsole.start(root: root)
            let app = ConsoleReporter.App(bundleID: "com.vendor.news.ios", teamID: "VENDOR1", platform: .iOS)
            let reporter = ConsoleReporter(configuration: .init(console: console.baseURL, app: app, deviceID: "vendor-device-1",
                interval: 0.05))
            let delegate = ForwardingDelegate(reporter: reporter)
            let provider = URL(string: backend.baseURL + "/adobe-services")!
            var configuration = AccessEnablerConfiguration(
                app: AppIdentity(bundleID: app.bundleID, teamID: app.teamID), deviceID: "vendor-device-1",
                storage: try DeviceFolder(root: root.appendingPathComponent("phone")).teamShared(teamID: app.teamID),
                storageDomain: "team \(app.teamID)", defaultServiceProvider: provider)
            configuration.now = { [service] in service.now() }
            let enabler = AccessEnabler(configuration: configuration, delegate: delegate, statusDelegate: delegate, logger: TestServer.logger)
            let sdkEvents = Mutex<[EntitlementEvent]>([])
            let stream = enabler.events(replay: true)
            let listener = Task { for await event in stream { sdkEvents.withLock { $0.append(event) } } }
            defer { listener.cancel() }

            // The app: each call reported in one line, then made
            reporter.call(.setRequestor, ["requestorID": "REF30", "serviceProviders": [provider]])
            enabler.setRequestor("REF30", serviceProviders: [provider])
            await settle(enabler)
            reporter.call(.getAuthentication, ["forceAuthn": false])
            enabler.getAuthentication()
            await settle(enabler)
            reporter.call(.setSelectedProvider, ["mvpd": "Dish"])
            enabler.setSelectedProvider("Dish")
            await settle(enabler)
            let loginURL = try #require(delegate.callbacks.compactMap { if case .navigateToUrl(let url, _) = $0 { url } else { nil } }.last)
            let end = try await HeadlessWebView().signIn(at: loginURL, username: "dave", password: "dave123")
            reporter.call(.handleExternalURL, ["url": end])
            enabler.handleExternalURL(end)
            await settle(enabler)
            for resource in ["kids", "news"] {
                reporter.call(.getAuthorization, ["resource": resource])
                enabler.getAuthorization(resource)
                await settle(enabler)
            }
            reporter.call(.checkPreauthorizedResources, ["resources": ["kids", "news"]])
            enabler.checkPreauthorizedResources(["kids", "news"])
            await settle(enabler)
            reporter.call(.getMetadata, ["opCode": "3", "user_metadata_name": "maxRating"])
            enabler.getMetadata(["opCode": "3", "user_metadata_name": "maxRating"])
            await settle(enabler)
            reporter.call(.getSelectedProvider)
            enabler.getSelectedProvider()
            await settle(enabler)

            // The delegate got every callback, unchanged: what the SDK recorded it delivered (the SDK's events cut the
            // token, the delegate has it whole and it works; without the handleSVC option the SDK calls
            // navigateToUrl with the URL alone)
            let delivered = delegate.callbacks
            let names = Set(delivered.map(\.name))
            #expect(names.isSuperset(of: ["setRequestorComplete", "displayProviderDialog", "navigateToUrl", "setAuthenticationStatus",
                "sendTrackingData", "setToken", "tokenRequestFailed", "preauthorizedResources", "setMetadataStatus", "selectedProvider"]),
                "\(names.sorted())")
            #expect(await waitUntil { sdkEvents.withLock { $0 }.compactMap(\.callback).count >= delivered.count })
            #expect(sdkEvents.withLock { $0 }.compactMap(\.callback).map(\.asDelivered) == delivered.map(\.redacted))
            let token = try #require(delivered.compactMap { if case .setToken(let token, "kids") = $0 { token } else { nil } }.first)
            let verdict = try await TestHTTPClient(baseURL: backend.baseURL).post("/verify",
                form: [("token", token), ("resource", "kids")])
            #expect(verdict.json["valid"] as? Bool == true, "\(verdict.text)")

            // The console received them all, as the SDK's own events would be
            #expect(await reporter.flush())
            var stored: [EntitlementEvent] = []
            #expect(try await waitUntil {
                stored = try await console.events(session: reporter.sessionID)
                return stored.compactMap(\.callback).count >= delivered.count
            })
            #expect(stored.compactMap(\.callback) == delivered.map(\.redacted))
            #expect(stored.compactMap(\.apiCallName) == ["setRequestor", "getAuthentication", "setSelectedProvider", "handleExternalURL",
                "getAuthorization", "getAuthorization", "checkPreauthorizedResources", "getMetadata", "getSelectedProvider"])
            let tracked = stored.compactMap { if case .tracking(let event, let data) = $0.kind { (event, data) } else { nil } }
            let trackingCallbacks = delivered.compactMap { if case .sendTrackingData(let event, let data) = $0 { (event, data) } else { nil } }
            #expect(tracked.map(\.0) == trackingCallbacks.map(\.0) && tracked.map(\.1) == trackingCallbacks.map(\.1))
            #expect(stored.map(\.sequence) == Array(1...stored.count), "one session, its sequence increasing by one")
            #expect(stored.allSatisfy { $0.sessionID == reporter.sessionID && $0.deviceID == "vendor-device-1" })
            #expect(stored.allSatisfy { $0.app == AppIdentity(bundleID: "com.vendor.news.ios", teamID: "VENDOR1", platform: .iOS) })
            #expect(stored.allSatisfy { $0.requestorID == "REF30" })
            let selection = try #require(stored.firstIndex { $0.apiCallName == "setSelectedProvider" })
            #expect(stored[..<selection].allSatisfy { $0.mvpdID == nil } && stored[selection...].allSatisfy { $0.mvpdID == "Dish" })
            let arguments = stored.compactMap { if case .apiCall(_, let arguments) = $0.kind { arguments } else { nil } }
            #expect(arguments.first == ["requestorID": "REF30", "serviceProviders": provider.absoluteString])
            #expect(arguments.contains(["resources": "kids,news"]) && arguments.contains(["forceAuthn": "false"]))

            // …and lists the session as an app's session
            let sessions = try await console.client.get("/api/sessions?q=com.vendor.news.ios").json["sessions"] as? [[String: Any]] ?? []
            #expect(sessions.contains { $0["id"] as? String == reporter.sessionID.uuidString && $0["bundleID"] as? String == app.bundleID },
                "\(sessions)")
            #expect(await waitUntil { reporter.counts.sent == stored.count }, "the reporter hears the console's last answer")
            #expect(reporter.counts == .init(sent: stored.count, queued: 0, dropped: 0, refused: 0, failures: 0))
            await reporter.finish()
            await console.stop()
        }
    }

    /// Waits until the SDK has handled everything and delivered its callbacks (setRequestor's configuration too).
    private func settle(_ enabler: AccessEnabler) async {
        for _ in 0..<500 {
            await enabler.settle()
            if case .configuring = await enabler.snapshot().requestor {
                try? await Task.sleep(for: .milliseconds(10))
            } else {
                break
            }
        }
        await enabler.settle()
    }
}

extension EntitlementEvent {
    var callback: EntitlementCallback? { if case .callback(let callback) = kind { callback } else { nil } }
    var apiCallName: String? { if case .apiCall(let method, _) = kind { method.rawValue } else { nil } }
}

extension EntitlementCallback {
    /// The callback as an app without the handleSVC option receives it: `navigateToUrl` without `useSVC`.
    var asDelivered: EntitlementCallback {
        if case .navigateToUrl(let url, _) = self { return .navigateToUrl(url: url, useSVC: nil) }
        return self
    }

    /// The callback as the SDK's events (and the console) keep it: secrets cut by the SDK's own rule.
    var redacted: EntitlementCallback {
        EntitlementEvent(sequence: 0, timestamp: Date(), sessionID: UUID(), deviceID: "", app: AppIdentity(bundleID: "", teamID: ""),
            requestorID: nil, mvpdID: nil, kind: .callback(callback: self)).redacted().callback!
    }
}
