import Foundation
import Logging
import PassProtocol
import Locking

/// The backend's model and rules, shared by every route: configuration, clock, signing key and live state.
public final class BackendService: Sendable {
    /// The configuration served.
    public let configuration: BackendConfiguration
    /// The backend's clock (tests advance it; the clock-offset fault shifts it).
    public let clock: BackendClock
    /// The key tokens are signed with.
    public let signingKey: TokenSigningKey
    /// Where logs go.
    public let logger: Logger
    let state: Mutex<BackendState>

    /// Creates the service.
    public init(
        configuration: BackendConfiguration, clock: BackendClock = BackendClock(),
        signingKey: TokenSigningKey = TokenSigningKey(), logger: Logger = Logger(label: "PassBackend")
    ) {
        self.configuration = configuration
        self.clock = clock
        self.signingKey = signingKey
        self.logger = logger
        self.state = Mutex(BackendState(faults: configuration.faults))
    }

    /// The time the backend believes it is (its clock plus the clock-offset fault).
    public func now() -> Date {
        clock.now().addingTimeInterval(TimeInterval(faults.clockOffsetSeconds))
    }

    /// The faults in force.
    public var faults: FaultSettings {
        get { state.withLock { $0.faults } }
        set { state.withLock { $0.faults = newValue } }
    }

    // MARK: - Lookups

    /// The Programmer with this requestor ID.
    public func programmer(_ id: String) -> Programmer? { configuration.programmers.first { $0.id == id } }

    /// The MVPD with this ID, with run-time overrides applied.
    public func mvpd(_ id: String) -> MVPD? {
        guard var mvpd = configuration.mvpds.first(where: { $0.id == id }) else { return nil }
        if let override = faults.mvpdOverrides[id] {
            mvpd.authnTTL = override.authnTTL ?? mvpd.authnTTL
            mvpd.authzTTL = override.authzTTL ?? mvpd.authzTTL
            mvpd.requiresSVC = override.requiresSVC ?? mvpd.requiresSVC
            mvpd.authPerRequestor = override.authPerRequestor ?? mvpd.authPerRequestor
        }
        return mvpd
    }

    /// The resource with this ID.
    public func resource(_ id: String) -> Resource? { configuration.resources.first { $0.id == id } }

    /// Whether `requestorID` integrates `mvpdID`.
    public func integrates(_ requestorID: String, _ mvpdID: String) -> Bool {
        programmer(requestorID)?.mvpds.contains(mvpdID) ?? false
    }

    /// The subscriber of `mvpdID` with these credentials, if they are right.
    func subscriber(mvpd mvpdID: String, username: String, password: String) -> Subscriber? {
        configuration.subscribers.first { $0.mvpd == mvpdID && $0.username == username && $0.password == password }
    }

    /// The subscriber a session belongs to.
    func subscriber(of session: AuthSession) -> Subscriber? {
        configuration.subscribers.first { $0.mvpd == session.mvpdID && $0.username == session.username }
    }

    /// The requestor configuration for the SDK (spec §5.2.1).
    public func requestorConfiguration(_ programmer: Programmer, clientType: String = "ios") -> RequestorConfiguration {
        RequestorConfiguration(
            device: TrackingDeviceType.of(clientType: clientType).rawValue, clientType: clientType,
            os: clientType == "tvos" ? "tvOS" : "iOS", requestorID: programmer.id, requestorName: programmer.name,
            mvpds: programmer.mvpds.compactMap(mvpd).map { mvpd in
                MVPDInfo(
                    id: mvpd.id, displayName: mvpd.displayName, logoURL: mvpd.logoURL,
                    passiveAuthnEnabled: mvpd.passiveAuthn, authPerAggregator: mvpd.authPerRequestor,
                    enablePlatformServices: mvpd.appleSSO, requiresSVC: mvpd.requiresSVC,
                    authenticationTTLSeconds: mvpd.authnTTL)
            })
    }

    /// Every Programmer's requestor configuration as the SDK receives it now (iOS), run-time overrides applied: what
    /// the console judges sign-ins by.
    public func requestorConfigurations(clientType: String = "ios") -> [String: RequestorConfiguration] {
        Dictionary(configuration.programmers.map { ($0.id, requestorConfiguration($0, clientType: clientType)) }) { a, _ in a }
    }

    // MARK: - State

    /// Live sessions (for the console and tests).
    public var sessions: [AuthSession] { state.withLock { Array($0.sessions.values) } }

    /// Every sign-in an authN token was issued for, oldest first, including ended ones (the last 1,000).
    public var signIns: [AuthSession] { state.withLock { $0.signIns } }

    /// Marks sessions ended on the server while the device keeps its tokens (the "session revoked" condition).
    ///
    /// - Returns: how many sessions were revoked.
    @discardableResult
    public func revokeSessions(deviceID: String? = nil, requestorID: String? = nil) -> Int {
        state.withLock { state in
            var count = 0
            for (key, session) in state.sessions
            where (deviceID == nil || session.deviceID == deviceID) && (requestorID == nil || session.requestorID == requestorID) {
                state.revoke(key)
                count += 1
            }
            return count
        }
    }
}
