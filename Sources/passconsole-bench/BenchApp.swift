import AccessEnabler
import Foundation
import PassSimulator
import PassStorage

/// The fixed cast of the benchmark: the seeds' Programmer, MVPD, subscriber and resource from Config/demo.json.
struct BenchNames: Sendable {
    var requestor = "REF30"
    var mvpd = "Dish"
    var user = "carol"
    var password = "carol123"
    var resource = "news"
}

/// One simulated iOS app on its own device folder (a ``SimulatedApp`` whose script picks the MVPD and signs in on the
/// login page). With `countingRoundTrips`, counts its round trips: the SDK's HTTP exchanges (events, so it subscribes
/// to them) plus the web view's requests; without, it runs as an app with no console attached. A failed sign-in ends
/// the login with `error=` so the waiting call throws instead of hanging.
final class BenchApp: Sendable {
    let app: SimulatedApp
    let names: BenchNames
    private let failures: SignInFailures
    private let exchanges: ExchangeCounter
    private let counting: Task<Void, Never>?

    var enabler: AccessEnabler { app.enabler }

    init(device: URL, serviceProvider: URL, names: BenchNames, countingRoundTrips: Bool = true) throws {
        let failures = SignInFailures()
        self.failures = failures
        self.names = names
        app = try SimulatedApp(
            app: AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234", platform: .iOS),
            device: DeviceFolder(root: device), serviceProvider: serviceProvider,
            player: .script(
                mvpd: names.mvpd, credentials: .init(username: names.user, password: names.password), endsLoginOnFailure: true),
            onFailure: { failure in
                let reason = if case .signInFailed(let message) = failure { message } else { "\(failure)" }
                failures.add(reason)
            })
        let exchanges = ExchangeCounter()
        self.exchanges = exchanges
        guard countingRoundTrips else {
            counting = nil
            return
        }
        let events = app.enabler.events()  // subscribed before the first call
        counting = Task {
            for await event in events {
                if case .httpExchange = event.kind { exchanges.add() }
            }
        }
    }

    deinit { counting?.cancel() }

    /// Why sign-ins failed, if any did.
    var failure: String? { failures.first }

    /// setRequestor, then getAuthorization until setToken: the cold flow (picker and login included).
    func configureAndAuthorize() async throws -> String {
        try await enabler.configure(names.requestor)
        return try await enabler.authorization(for: names.resource)
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
        return last + app.webView.requestCount
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

/// Why the app's sign-ins failed, in order.
final class SignInFailures: @unchecked Sendable {
    private let lock = NSLock()
    private var reasons: [String] = []
    func add(_ reason: String) { lock.withLock { reasons.append(reason) } }
    var first: String? { lock.withLock { reasons.first } }
}
