import Foundation
import Logging
import PassProtocol
import Synchronization

/// The entitlement SDK: the seeds' `AccessEnabler` API, with the same names and callback order.
///
/// Every method returns at once; results arrive on the ``EntitlementDelegate`` (and ``EntitlementStatus``) on the
/// delegate queue. Calls run in the order they were made; entitlement calls made before `setRequestor` completes
/// wait and run after it (spec §1.3).
///
/// ```swift
/// let enabler = AccessEnabler(configuration: configuration, delegate: self)
/// enabler.setRequestor("REF30", serviceProviders: [URL(string: "http://127.0.0.1:8081/adobe-services")!])
/// enabler.getAuthorization("news")   // → displayProviderDialog, navigateToUrl, …, setToken
/// ```
public final class AccessEnabler: Sendable {
    /// The SDK version reported by ``getVersion()`` and sent as `client_version`.
    public static let version = "3.9.0-passconsole"
    /// How far the device's clock may be from the service's before setRequestor warns with `CFG100` (and the console
    /// names a clock offset): the 1-second resolution of `Date` headers plus time for a slow answer.
    public static let clockSkewTolerance: TimeInterval = 120

    let engine: EntitlementEngine
    let dispatcher: CallbackDispatcher
    let broadcaster: EventBroadcaster
    private let intake: AsyncStream<@Sendable (EntitlementEngine) async -> Void>.Continuation
    /// Calls handed to the intake and not yet run.
    private let queued = QueuedCalls()

    /// Creates the app's AccessEnabler.
    ///
    /// - Parameters:
    ///   - configuration: the app, device ID, storage location and default service provider.
    ///   - delegate: receives the callbacks (held weakly, like a UIKit delegate).
    ///   - statusDelegate: receives advanced status dictionaries (held weakly).
    ///   - delegateQueue: where callbacks run; default a serial queue standing for the main thread.
    ///   - logger: where the SDK logs.
    public init(
        configuration: AccessEnablerConfiguration, delegate: (any EntitlementDelegate)?,
        statusDelegate: (any EntitlementStatus)? = nil,
        delegateQueue: DispatchQueue = DispatchQueue(label: "AccessEnabler.delegate"),
        logger: Logger = Logger(label: "AccessEnabler")
    ) {
        let broadcaster = EventBroadcaster()
        let dispatcher = CallbackDispatcher(delegate: delegate, statusDelegate: statusDelegate, queue: delegateQueue)
        let engine = EntitlementEngine(configuration: configuration, dispatcher: dispatcher, broadcaster: broadcaster, logger: logger)
        self.engine = engine
        self.dispatcher = dispatcher
        self.broadcaster = broadcaster
        let (stream, continuation) = AsyncStream<@Sendable (EntitlementEngine) async -> Void>.makeStream()
        self.intake = continuation
        // One consumer keeps the app's calls in order; long work is queued inside the engine.
        Task {
            for await step in stream { await step(engine) }
        }
    }

    deinit { intake.finish() }

    func send(_ step: @escaping @Sendable (EntitlementEngine) async -> Void) {
        let queued = queued
        queued.count.add(1, ordering: .sequentiallyConsistent)
        intake.yield { engine in
            await step(engine)
            queued.count.subtract(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Whether every call made so far has been handed to the engine.
    var intakeIsEmpty: Bool { queued.count.load(ordering: .sequentiallyConsistent) == 0 }

    // MARK: - The seeds' API

    /// Names the Programmer and loads its configuration; triggers exactly one `setRequestorComplete`.
    /// - Parameter serviceProviders: service-provider bases (`…/adobe-services`); the first is used.
    public func setRequestor(_ requestorID: String, serviceProviders: [URL]? = nil) {
        send { await $0.setRequestor(requestorID, serviceProviders: serviceProviders, secret: nil, publicKey: nil) }
    }

    /// tvOS: as ``setRequestor(_:serviceProviders:)``, with the secret and public key that sign second-screen calls.
    public func setRequestor(_ requestorID: String, serviceProviders: [URL]? = nil, secret: String, publicKey: String) {
        send { await $0.setRequestor(requestorID, serviceProviders: serviceProviders, secret: secret, publicKey: publicKey) }
    }

    /// Global options sent with every later request: `visitorID`, `applicationProfile`, `handleSVC`, `device_info`.
    public func setOptions(_ options: [String: String]) { send { await $0.setOptions(options) } }

    /// Checks local storage only: `setAuthenticationStatus(1)` with a valid token, otherwise `0`.
    public func checkAuthentication() { send { await $0.submit(.checkAuthentication) } }

    /// Starts authentication (seed 002 steps 1–9) unless a valid token exists (then status 1 at once).
    public func getAuthentication(forceAuthn: Bool = false, withData data: [String: String]? = nil) {
        send { await $0.submit(.getAuthentication(forceAuthn: forceAuthn, data: data)) }
    }

    /// The user picked an MVPD (`nil`: cancel — flow reset, this Programmer's MVPD erased).
    public func setSelectedProvider(_ mvpdID: String?) { send { engine in await engine.runInOrder { await engine.setSelectedProvider(mvpdID) } } }

    /// Asks for the current Programmer's selected MVPD → `selectedProvider`.
    public func getSelectedProvider() { send { engine in await engine.runInOrder { await engine.getSelectedProvider() } } }

    /// The web view reached the redirect URL (`adobepass://ios.app` or the app's scheme): finish login or logout.
    public func handleExternalURL(_ url: String) { send { engine in await engine.runInOrder { await engine.handleExternalURL(url) } } }

    /// Authorizes without starting a login: not authenticated → `tokenRequestFailed(User Not Authenticated Error)`.
    public func checkAuthorization(_ resource: String, withData data: [String: String]? = nil) {
        send { await $0.submit(.checkAuthorization(resource: resource, data: data)) }
    }

    /// Gets a short media token for `resource` → `setToken`, logging in first when needed.
    public func getAuthorization(_ resource: String, withData data: [String: String]? = nil) {
        send { await $0.submit(.getAuthorization(resource: resource, data: data)) }
    }

    /// Which of `resources` the user may view → `preauthorizedResources`.
    public func checkPreauthorizedResources(_ resources: [String]) { send { await $0.submit(.checkPreauthorizedResources(resources: resources)) } }

    /// Metadata: `["opCode": "0"]` authN expiry, `"1"` + `resource_id` authZ expiry, `"2"` device ID, `"3"` +
    /// `user_metadata_name` a user-metadata item → `setMetadataStatus`, whose arguments are `keys` exactly as passed
    /// (the cookbook: "the same dictionary that was passed to getMetadata()"). The keys and op codes are
    /// `PassConstants.METADATA_*`; an `opCode` that is missing or not a number is `METADATA_KEY_INVALID`.
    public func getMetadata(_ keys: [String: String]) {
        let key = keys[PassConstants.METADATA_OPCODE_KEY].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            ?? PassConstants.METADATA_KEY_INVALID
        send { await $0.submit(.getMetadata(key: key, arguments: keys)) }
    }

    /// Logs out: clears all storage, then the logout chain (iOS: `navigateToUrl`), ending with status 0.
    public func logout() { send { await $0.submit(.logout) } }

    /// The SDK version.
    public static func getVersion() -> String { version }

    // MARK: - Observing

    /// Every event from now on (with `replay`, the recent ones first). One stream per caller.
    public func events(replay: Bool = false) -> AsyncStream<EntitlementEvent> { broadcaster.subscribe(replay: replay) }

    /// Blocks until the storage changes made so far are on disk. They land on their own when the call that made them
    /// is done (at the latest 50 ms after the change); a tool that reads the storage files beside a running app (the
    /// console), or an app about to hand its storage to another process, calls this first.
    public func waitForStorageWrites() { engine.writer.flushNow() }

    /// ``waitForStorageWrites()`` for every storage file of this process in `folders` (all of them when nil),
    /// including those of AccessEnablers already released whose last call is still finishing: the console, before it
    /// reads or changes its devices' files.
    public static func waitForAllStorageWrites(in folders: [URL]? = nil) { StorageWriter.flushAll(in: folders) }

    /// Waits until every call made so far has been handled and its callbacks delivered.
    public func settle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            send { engine in
                await engine.settle()
                continuation.resume()
            }
        }
        await engine.writer.drain()
        await dispatcher.drain()
    }

    /// The flows' current states, for dashboards.
    public func snapshot() async -> FlowSnapshot { await engine.snapshot() }

    /// The rules this SDK judges its token storage by now, at `now`: from the configuration it received at its last
    /// completed `setRequestor` (which MVPDs count, which sign in per Programmer, which allow passive authentication),
    /// not from the service's settings since. `checkAuthentication`'s next answer is these rules over the storage
    /// (``TokenStorage/hasValidAuthn(_:)``, then ``TokenStorage/copySSOToken(_:)``); `nil` before a `setRequestor`
    /// completed, or after one failed. A dashboard that predicts the answer judges by these (one rule, one place).
    public func authenticationContext(now: Date) -> SSOContext? {
        let deviceID = engine.configuration.deviceID
        return engine.heldRequestor.withLock { $0 }.map { EntitlementEngine.ssoContext($0, now: now, deviceID: deviceID) }
    }
}

/// The number of calls waiting in an AccessEnabler's intake.
final class QueuedCalls: Sendable {
    let count = Atomic<Int>(0)
}

/// The observable state of one AccessEnabler's flows.
public struct FlowSnapshot: Codable, Sendable, Equatable {
    /// The Programmer set by `setRequestor` (nil before it is called).
    public var requestorID: String?
    /// The requestor flow's state (in JSON, its wire text: `configuring (2 queued)`).
    public var requestor: FlowState
    /// The authentication flow's state (in JSON, its wire text: `awaitingLogin(Dish)`).
    public var authentication: FlowState
    /// Resources whose authorization waits for the authentication flow to finish.
    public var waitingAuthorizations: [String]
    /// The device ID the SDK sends (from its configuration).
    public var deviceID: String
}

extension EntitlementEngine {
    func snapshot() -> FlowSnapshot {
        FlowSnapshot(
            requestorID: requestor?.id ?? pendingRequestorID, requestor: requestorMachine.flowState,
            authentication: authentication.flowState, waitingAuthorizations: waitingAuthorizations.map(\.resource), deviceID: deviceID)
    }
}
