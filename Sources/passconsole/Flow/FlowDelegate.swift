import AccessEnabler
import Foundation

/// What the simulated app's delegate tells the flow runner.
enum FlowSignal: Sendable {
    /// A delegate (or status) callback, already printed.
    case callback(EntitlementCallback)
    /// The app cannot go on (no MVPD to pick, the login page refused the credentials, …), already printed.
    case failure(String)
    /// `--timeout` passed.
    case timedOut
}

/// What the web view does with the next `navigateToUrl`: sign in on the MVPD's page, or follow the logout chain.
enum WebViewTask: Sendable {
    case signIn
    case logout
}

/// The simulated app's delegate: prints every callback as one JSON line, plays the user (picks `--mvpd` in the
/// picker, signs in with `--user`/`--password` in a ``HeadlessWebView``, follows logout pages) and reports each
/// callback to the flow runner.
///
/// Callbacks arrive on the SDK's delegate queue, one at a time and in order, so lines print in callback order.
final class FlowDelegate: EntitlementDelegate, EntitlementStatus, @unchecked Sendable {
    private let output: FlowOutput
    private let mvpd: String?
    private let credentials: (user: String, password: String)?
    private let signals: AsyncStream<FlowSignal>.Continuation
    private let webView = HeadlessWebView()
    // Set once by the runner before the first call; read on the delegate queue and by web-view tasks.
    private let lock = NSLock()
    private var enabler: AccessEnabler?
    private var webViewTask = WebViewTask.signIn

    init(
        output: FlowOutput, mvpd: String?, credentials: (user: String, password: String)?,
        signals: AsyncStream<FlowSignal>.Continuation
    ) {
        self.output = output
        self.mvpd = mvpd
        self.credentials = credentials
        self.signals = signals
    }

    /// The SDK this delegate drives (held strongly: the SDK holds its delegate weakly).
    func attach(_ enabler: AccessEnabler) {
        lock.withLock { self.enabler = enabler }
    }

    /// What the next `navigateToUrl` is for.
    func expect(_ task: WebViewTask) {
        lock.withLock { webViewTask = task }
    }

    private var attached: (AccessEnabler?, WebViewTask) { lock.withLock { (enabler, webViewTask) } }

    // MARK: - Reporting

    private func report(_ callback: EntitlementCallback) {
        output.callback(callback)
        signals.yield(.callback(callback))
    }

    /// Prints an error line and tells the runner the flow cannot end well.
    func fail(_ message: String) {
        output.error(message)
        signals.yield(.failure(message))
    }

    // MARK: - The user's part

    private func pickProvider(_ mvpds: [MVPD]) {
        guard let mvpd else {
            let offered = mvpds.map(\.ID).joined(separator: ", ")
            fail("The SDK shows the provider picker but no --mvpd was given (offered: \(offered)).")
            return
        }
        attached.0?.setSelectedProvider(mvpd)
    }

    private func load(_ url: String) {
        let (enabler, task) = attached
        guard let enabler else { return }
        let credentials = self.credentials
        let webView = self.webView
        Task {
            do {
                let end: String
                switch task {
                case .logout:
                    end = try await webView.followLogout(url)
                case .signIn:
                    guard let credentials else {
                        self.fail("The SDK opened the MVPD's login page but no --user and --password were given.")
                        return
                    }
                    end = try await webView.signIn(at: url, username: credentials.user, password: credentials.password)
                }
                enabler.handleExternalURL(end)
            } catch {
                self.fail("\(task == .logout ? "Logout" : "Login") page: \(error)")
            }
        }
    }

    // MARK: - EntitlementDelegate

    func setRequestorComplete(_ status: Int) { report(.setRequestorComplete(status: status)) }

    func setAuthenticationStatus(_ status: Int, errorCode: String?) {
        report(.setAuthenticationStatus(status: status, errorCode: errorCode))
    }

    func displayProviderDialog(_ mvpds: [MVPD]) {
        report(.displayProviderDialog(mvpds: mvpds))
        pickProvider(mvpds)
    }

    func navigateToUrl(_ url: String) {
        report(.navigateToUrl(url: url, useSVC: nil))
        load(url)
    }

    func navigateToUrl(_ url: String, useSVC: Bool) {
        report(.navigateToUrl(url: url, useSVC: useSVC))
        load(url)
    }

    func setToken(_ token: String, forResource resource: String) { report(.setToken(token: token, resource: resource)) }

    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String?) {
        report(.tokenRequestFailed(resource: resource, errorCode: errorCode, errorDescription: errorDescription))
    }

    func selectedProvider(_ mvpd: MVPD?) { report(.selectedProvider(mvpd: mvpd)) }

    func sendTrackingData(_ data: [String], forEventType event: TrackingEvent) {
        report(.sendTrackingData(event: event, data: data))
    }

    func setMetadataStatus(_ metadata: String?, encrypted: Bool, forKey key: Int, andArguments arguments: [String: String]?) {
        report(.setMetadataStatus(metadata: metadata, encrypted: encrypted, key: key, arguments: arguments))
    }

    func preauthorizedResources(_ resources: [String]) { report(.preauthorizedResources(resources: resources)) }

    func presentTvProviderDialog() { report(.presentTvProviderDialog) }

    func dismissTvProviderDialog() { report(.dismissTvProviderDialog) }

    // MARK: - EntitlementStatus

    func status(_ statusDictionary: [String: String]) { report(.status(statusDictionary: statusDictionary)) }
}

/// stdout, one JSON line per callback, event or error; whole lines only, whichever thread writes.
final class FlowOutput: @unchecked Sendable {
    private let lock = NSLock()
    private let encoder: JSONEncoder
    private var eventCount = 0

    init() {
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
    }

    /// `{"callback": name, <parameter>: value, …}`: the callback's own Codable form.
    func callback(_ callback: EntitlementCallback) { write(callback) }

    /// `{"event": {…}}`: one SDK event (`--events`).
    func event(_ event: EntitlementEvent) {
        write(EventLine(event: event))
        lock.withLock { eventCount += 1 }
    }

    /// `{"error": message}`: why the flow cannot go on.
    func error(_ message: String) { write(["error": message]) }

    /// How many events were printed (the runner waits for this to settle before exiting).
    var eventsPrinted: Int { lock.withLock { eventCount } }

    private func write(_ value: some Encodable) {
        lock.withLock {
            guard var data = try? encoder.encode(value) else { return }
            data.append(0x0A)
            FileHandle.standardOutput.write(data)
        }
    }

    private struct EventLine: Encodable {
        var event: EntitlementEvent
    }
}
