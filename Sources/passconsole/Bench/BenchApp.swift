import AccessEnabler
import Foundation
import PassStorage

/// The fixed cast of the benchmark: the seeds' Programmer, MVPD, subscriber and resource from Config/demo.json.
struct BenchNames: Sendable {
    var requestor = "REF30"
    var mvpd = "Dish"
    var user = "carol"
    var password = "carol123"
    var resource = "news"
}

/// One simulated iOS app on its own device folder, with a delegate that plays the user: picks the MVPD and signs
/// in on the login page in a ``HeadlessWebView``. With `countingRoundTrips`, counts its round trips: the SDK's HTTP
/// exchanges (events, so it subscribes to them) plus the web view's requests; without, it runs as an app with no
/// console attached.
final class BenchApp: Sendable {
    let enabler: AccessEnabler
    let delegate: BenchDelegate
    private let exchanges: ExchangeCounter
    private let counting: Task<Void, Never>?

    init(device: URL, serviceProvider: URL, names: BenchNames, countingRoundTrips: Bool = true) throws {
        let app = AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234", platform: .iOS)
        let (configuration, _) = try AccessEnablerConfiguration.simulated(
            app: app, device: DeviceFolder(root: device), serviceProvider: serviceProvider)
        delegate = BenchDelegate(names: names)
        enabler = AccessEnabler(configuration: configuration, delegate: delegate)
        delegate.attach(enabler)
        let exchanges = ExchangeCounter()
        self.exchanges = exchanges
        guard countingRoundTrips else {
            counting = nil
            return
        }
        let events = enabler.events()  // subscribed before the first call
        counting = Task {
            for await event in events {
                if case .httpExchange = event.kind { exchanges.add() }
            }
        }
    }

    deinit { counting?.cancel() }

    /// setRequestor, then getAuthorization until setToken: the cold flow (picker and login included).
    func configureAndAuthorize() async throws -> String {
        try await enabler.configure(delegate.names.requestor)
        return try await enabler.authorization(for: delegate.names.resource)
    }

    /// Round trips so far: SDK exchanges + web view requests. Waits (outside any timing) until the SDK's exchange
    /// events, published a moment after their answers, stop arriving.
    func roundTrips() async -> Int {
        await enabler.settle()
        var last = exchanges.value
        for _ in 0..<50 {
            try? await Task.sleep(for: .milliseconds(20))
            if exchanges.value == last { break }
            last = exchanges.value
        }
        return last + delegate.webView.requestCount
    }

    /// Stops counting (the warm loop runs without an event subscriber, as an app without a console would).
    func stopCounting() { counting?.cancel() }
}

/// Counts the SDK's `.httpExchange` events.
final class ExchangeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// The app's delegate: answers the picker with the MVPD, signs in on `navigateToUrl` and hands the end URL to
/// `handleExternalURL`. A failed sign-in ends the login with `error=` so the waiting call throws instead of hanging.
final class BenchDelegate: EntitlementDelegate, @unchecked Sendable {
    let names: BenchNames
    let webView = HeadlessWebView()
    private let lock = NSLock()
    private weak var enabler: AccessEnabler?
    private var failures: [String] = []

    init(names: BenchNames) { self.names = names }

    func attach(_ enabler: AccessEnabler) { lock.withLock { self.enabler = enabler } }

    /// Why sign-ins failed, if any did.
    var failure: String? { lock.withLock { failures.first } }

    func displayProviderDialog(_ mvpds: [MVPD]) {
        lock.withLock { enabler }?.setSelectedProvider(names.mvpd)
    }

    func navigateToUrl(_ url: String) {
        guard let enabler = lock.withLock({ enabler }) else { return }
        let (webView, names) = (webView, names)
        Task {
            do {
                enabler.handleExternalURL(try await webView.signIn(at: url, username: names.user, password: names.password))
            } catch {
                self.lock.withLock { self.failures.append("\(error)") }
                enabler.handleExternalURL("adobepass://ios.app?error=bench_sign_in_failed")
            }
        }
    }
}
