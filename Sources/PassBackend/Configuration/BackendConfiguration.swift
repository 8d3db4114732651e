import Foundation
import PassProtocol

/// Everything the stand-in backend serves: Programmers, MVPDs, resources, registered apps, demo subscribers,
/// token lifetimes and start-up faults. Read from `Config/*.json` by the executable and handed in as a value.
public struct BackendConfiguration: Codable, Sendable, Equatable {
    /// Programmers (requestor IDs) and the MVPDs each integrates.
    public var programmers: [Programmer]
    /// MVPDs and their flags.
    public var mvpds: [MVPD]
    /// Protected resources (channels, shows).
    public var resources: [Resource]
    /// Apps registered for the REST v1 API (HMAC public key + secret) and dynamic client registration.
    public var apps: [RegisteredApp]
    /// Demo subscribers per MVPD.
    public var subscribers: [Subscriber]
    /// Lifetimes of media tokens and registration codes.
    public var tokens: TokenSettings
    /// Faults active from start-up (they can be changed at run time through `/admin/faults`).
    public var faults: FaultSettings
    /// TempPass MVPDs (REST API v2 temporary access): not MVPDs anyone signs in with, so not in ``mvpds``.
    public var tempPass: [TempPassMVPD] = []

    /// Creates a configuration.
    public init(
        programmers: [Programmer], mvpds: [MVPD], resources: [Resource], apps: [RegisteredApp] = [],
        subscribers: [Subscriber], tokens: TokenSettings = .init(), faults: FaultSettings = .init()
    ) {
        self.programmers = programmers
        self.mvpds = mvpds
        self.resources = resources
        self.apps = apps
        self.subscribers = subscribers
        self.tokens = tokens
        self.faults = faults
    }

    /// Decodes `Config/demo.json`; `subscribers`, `tokens` and `faults` may be left out.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        programmers = try c.decode([Programmer].self, forKey: .programmers)
        mvpds = try c.decode([MVPD].self, forKey: .mvpds)
        resources = try c.decodeIfPresent([Resource].self, forKey: .resources) ?? []
        apps = try c.decodeIfPresent([RegisteredApp].self, forKey: .apps) ?? []
        subscribers = try c.decodeIfPresent([Subscriber].self, forKey: .subscribers) ?? []
        tokens = try c.decodeIfPresent(TokenSettings.self, forKey: .tokens) ?? .init()
        faults = try c.decodeIfPresent(FaultSettings.self, forKey: .faults) ?? .init()
        tempPass = try c.decodeIfPresent([TempPassMVPD].self, forKey: .tempPass) ?? []
    }

    /// Reads and checks a configuration file.
    ///
    /// - Throws: ``ConfigurationError`` naming the file and what is wrong (JSON syntax, a missing field, an MVPD
    ///   a Programmer names but nobody defines, …).
    public static func load(path: String) throws -> BackendConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(message: "Cannot read the configuration file \(path).")
        }
        let configuration: BackendConfiguration
        do {
            configuration = try JSONDecoder().decode(BackendConfiguration.self, from: data)
        } catch {
            throw ConfigurationError(message: "\(path) is not a valid backend configuration: \(error)")
        }
        let problems = configuration.problems()
        guard problems.isEmpty else {
            throw ConfigurationError(message: "\(path): " + problems.joined(separator: "; "))
        }
        return configuration
    }

    /// Inconsistencies, in words (empty when the configuration is usable).
    public func problems() -> [String] {
        var problems: [String] = []
        let mvpdIDs = Set(mvpds.map(\.id))
        let resourceIDs = Set(resources.map(\.id))
        for programmer in programmers {
            for mvpd in programmer.mvpds where !mvpdIDs.contains(mvpd) {
                problems.append("Programmer \(programmer.id) integrates unknown MVPD \(mvpd)")
            }
            if let problem = programmer.metadataEncryption?.problem { problems.append("Programmer \(programmer.id): \(problem)") }
        }
        for subscriber in subscribers {
            if !mvpdIDs.contains(subscriber.mvpd) {
                problems.append("subscriber \(subscriber.username) belongs to unknown MVPD \(subscriber.mvpd)")
            }
            for resource in subscriber.entitlements where !resourceIDs.contains(resource) && resource != "*" {
                problems.append("subscriber \(subscriber.username) is entitled to unknown resource \(resource)")
            }
        }
        for mvpd in mvpds { problems += mvpd.loginPage.problems(mvpd: mvpd.id) }
        if Set(programmers.map(\.id)).count != programmers.count { problems.append("duplicate Programmer IDs") }
        if mvpdIDs.count != mvpds.count { problems.append("duplicate MVPD IDs") }
        for temp in tempPass {
            if mvpdIDs.contains(temp.id) { problems.append("TempPass \(temp.id) has the ID of an MVPD") }
            if temp.ttl < 1 || temp.ttl > 31_536_000 { problems.append("TempPass \(temp.id): ttl must be 1...31536000 seconds") }
            if let most = temp.maxResources, most < 1 || most > 1_000_000 {
                problems.append("TempPass \(temp.id): maxResources must be 1...1000000")
            }
        }
        return problems
    }
}

/// A configuration that cannot be used, and why.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the file and field.
    public var message: String
    /// The ``message``.
    public var description: String { message }
}

extension BackendConfiguration {
    /// The requestor configuration the SDK receives for `programmer` (spec §5.2.1) as configured, before any run-time
    /// override (``BackendService/requestorConfiguration(_:clientType:)`` applies those). The console reads it to
    /// judge tokens and single sign-on by the SDK's rules.
    public func requestorConfiguration(_ programmer: Programmer, clientType: String = "ios") -> RequestorConfiguration {
        RequestorConfiguration(
            device: TrackingDeviceType.of(clientType: clientType).rawValue, clientType: clientType,
            os: clientType == "tvos" ? "tvOS" : "iOS", requestorID: programmer.id, requestorName: programmer.name,
            mvpds: programmer.mvpds.compactMap { id in mvpds.first { $0.id == id } }.map { mvpd in
                MVPDInfo(
                    id: mvpd.id, displayName: mvpd.displayName, logoURL: mvpd.logoURL,
                    passiveAuthnEnabled: mvpd.passiveAuthn, authPerAggregator: mvpd.authPerRequestor,
                    enablePlatformServices: mvpd.appleSSO, requiresSVC: mvpd.requiresSVC,
                    authenticationTTLSeconds: mvpd.authnTTL)
            })
    }

    /// Every Programmer's requestor configuration, by requestor ID.
    public var requestorConfigurations: [String: RequestorConfiguration] {
        Dictionary(programmers.map { ($0.id, requestorConfiguration($0)) }, uniquingKeysWith: { a, _ in a })
    }
}
