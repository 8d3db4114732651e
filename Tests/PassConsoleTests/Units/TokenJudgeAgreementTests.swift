import AccessEnabler
import Foundation
import PassProtocol
import PassStorage
import PassTestSupport
import Testing
@testable import PassConsole

/// The Tokens grid says what the SDK does: storage files of generated tokens (expired or not, foreign issuers, other
/// devices, copies from other Programmers, unreadable ones) are judged by the console (``StorageReport``) and by the
/// SDK's own storage rules (the token sanitizer, `hasValidAuthn`, `TokenValidity` as the engine calls it, the silent SSO
/// copy), and both must give the same answer. A failing seed is printed and replays the same storage.
struct TokenJudgeAgreementTests {
    static let requestors = ["REF30", "SPORTS1", "KIDSNET"]
    static let mvpds = ["Dish", "Spectrum", "Cablevision", "Foreign"]
    static let devices = ["device-a", "device-b", "device-c"]
    static let key = TokenSigningKey()

    /// One generated case: a storage, the apps that read it, the Programmers' MVPD lists, the time of the verdicts.
    struct Case {
        var storage: TokenStorage
        var readers: [KnownApp]
        var allowed: [String: Set<String>]
        var now: Date
        /// The MVPDs with authentication per requestor (the backend's binding rule).
        var perRequestor: Set<String> = []
    }

    static func generate(_ random: inout SeededRandom) -> Case {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
        func expiry() -> Date {
            // Around now, exactly now included (a token expiring now is expired).
            now.addingTimeInterval(pick([-7200, -1, 0, 1, 60, 7200]))
        }
        var allowed: [String: Set<String>] = [:]
        for requestor in requestors where chance(80) {
            allowed[requestor] = Set(mvpds.filter { _ in chance(60) })
        }
        var storage = TokenStorage()
        for _ in 0..<(1 + random.next() % 4) {
            let requestor = pick(requestors), mvpd = pick(mvpds)
            let authn: String
            if chance(8) {
                authn = "not a token"
            } else {
                let body = AuthNToken(
                    guid: "user", requestorID: chance(20) ? pick(requestors) : requestor, expires: expiry(),
                    mvpdID: chance(85) ? mvpd : pick(mvpds), deviceFingerprint: DeviceFingerprint.make(deviceID: pick(devices)))
                authn = SignedToken.sign(body, with: key).serialized
            }
            storage.storeAuthentication(requestor: requestor, mvpd: mvpd, authnToken: authn, userMeta: nil)
            for resource in ["news", "kids"] where chance(50) {
                let body = AuthZToken(
                    requestorID: requestor, resourceID: resource, expires: expiry(), mvpdID: chance(85) ? mvpd : pick(mvpds),
                    deviceFingerprint: DeviceFingerprint.make(deviceID: pick(devices)))
                storage.storeAuthorization(
                    requestor: requestor, mvpd: mvpd, resource: resource, authzToken: SignedToken.sign(body, with: key).serialized)
            }
        }
        let readers = devices.filter { _ in chance(45) }.enumerated().map { index, deviceID in
            KnownApp(identity: AppIdentity(bundleID: "com.team.app\(index)", teamID: "TEAM"), deviceID: deviceID, device: "phone")
        }
        return Case(storage: storage, readers: readers, allowed: allowed, now: now, perRequestor: Set(mvpds.filter { _ in chance(40) }))
    }

    /// Writes the case's storage to a real team file of a fresh device folder and builds the Tokens grid over it.
    static func report(_ generated: Case) throws -> StorageReport.Domain {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("judge-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let device = ConsoleDevice(name: "phone", folder: DeviceFolder(root: root))
        let domain = StorageDomain(device: "phone", kind: .team, owner: "TEAM", file: try device.folder.teamShared(teamID: "TEAM"))
        try domain.store.update { $0 = generated.storage }
        return StorageReport.domain(
            domain, apps: generated.readers, allowedMvpds: generated.allowed, perRequestorMvpds: generated.perRequestor, now: generated.now)
    }

    /// The SDK's context for `requestor` on `deviceID`; when the console does not know the MVPD list, every MVPD.
    static func context(_ generated: Case, _ requestor: String, deviceID: String?) -> SSOContext {
        SSOContext(
            requestorID: requestor, allowedMvpds: generated.allowed[requestor] ?? Set(mvpds), now: generated.now, deviceID: deviceID)
    }

    /// Whether the app on `deviceID` uses the sign-in of bucket (`requestor`, `mvpd`), by the SDK's rules: the token
    /// sanitizer of its setRequestor keeps it, and `hasValidAuthn` counts it.
    static func sdkUsesAuthN(_ serialized: String, _ requestor: String, _ mvpd: String, _ generated: Case, deviceID: String?) -> Bool {
        var alone = TokenStorage()
        alone.storeAuthentication(requestor: requestor, mvpd: mvpd, authnToken: serialized, userMeta: nil)
        if let deviceID, !TokenSanitizer.sanitize(&alone, deviceID: deviceID).isEmpty { return false }
        return alone.hasValidAuthn(context(generated, requestor, deviceID: deviceID))
    }

    static func sdkUsesAuthZ(_ serialized: String, _ requestor: String, _ generated: Case, deviceID: String?) -> Bool {
        // As the engine's getAuthorization judges a stored authorization.
        TokenValidity.authZ(serialized, allowedMvpds: generated.allowed[requestor], now: generated.now, deviceID: deviceID).0.isValid
    }

    /// Whether every reader (or, with none known, any app) uses the token.
    static func everyReader(_ generated: Case, _ uses: (String?) -> Bool) -> Bool {
        generated.readers.isEmpty ? uses(nil) : generated.readers.allSatisfy { uses($0.deviceID) }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func theGridAndTheSDKAgreeOnEveryGeneratedToken(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var judged = 0
        for round in 0..<60 {
            let generated = Self.generate(&random)
            let domain = try Self.report(generated)
            for programmer in domain.programmers {
                let requestor = programmer.requestorID
                for cell in programmer.mvpds {
                    let bucket = try #require(generated.storage.requestors[requestor]?.mvpds[cell.mvpdID])
                    if let serialized = bucket.authnToken, let report = cell.authn {
                        let sdk = Self.everyReader(generated) {
                            Self.sdkUsesAuthN(serialized, requestor, cell.mvpdID, generated, deviceID: $0)
                        }
                        let console = report.verdicts.allSatisfy { $0.ok || $0.rule == TokenJudge.requestorRule }
                        #expect(console == sdk, "seed \(seed) round \(round): \(requestor)/\(cell.mvpdID) authN \(report.verdicts)")
                        // The grid's requestor verdict is the SDK's and the backend's RequestorBinding (SSOContext.accepts)
                        if let token = try? SignedToken<AuthNToken>.parse(serialized).body {
                            let binding = report.verdicts.first { $0.rule == TokenJudge.requestorRule }
                            let context = SSOContext(
                                requestorID: requestor, allowedMvpds: [], authnPerRequestorMvpds: generated.perRequestor, now: generated.now)
                            #expect(binding?.ok == context.accepts(token), "seed \(seed) round \(round): \(requestor) \(binding?.text ?? "")")
                        }
                        judged += 1
                    }
                    for authz in cell.authz {
                        let serialized = try #require(bucket.authzTokens[authz.resource ?? ""])
                        let sdk = Self.everyReader(generated) { Self.sdkUsesAuthZ(serialized, requestor, generated, deviceID: $0) }
                        #expect(authz.valid == sdk, "seed \(seed) round \(round): \(requestor)/\(cell.mvpdID) authZ \(authz.verdicts)")
                        judged += 1
                    }
                }
            }
        }
        #expect(judged > 200, "the generator made enough tokens")
    }

    @Test func theFirstRuleTheSDKFailsIsAFailedVerdictOfTheGrid() throws {
        var random = SeededRandom(seed: 99)
        for _ in 0..<60 {
            let generated = Self.generate(&random)
            for programmer in try Self.report(generated).programmers {
                for cell in programmer.mvpds {
                    guard let serialized = generated.storage.requestors[programmer.requestorID]?.mvpds[cell.mvpdID]?.authnToken,
                        let report = cell.authn
                    else { continue }
                    let failed = Set(report.verdicts.filter { !$0.ok }.map(\.rule))
                    switch TokenValidity.authN(serialized, allowedMvpds: generated.allowed[programmer.requestorID], now: generated.now).0 {
                    case .valid: #expect(!failed.contains("ttl") && !failed.contains("issuer"))
                    case .expired, .malformed: #expect(failed.contains("ttl"))
                    case .issuerNotAllowed: #expect(failed.contains("issuer") && !failed.contains("ttl"))
                    case .boundToAnotherDevice: Issue.record("no device ID was given")
                    }
                }
            }
        }
    }

    @Test func aSignInTheSDKCopiesFromAnotherProgrammerIsAcceptedUnlessItsMVPDSignsInPerProgrammer() throws {
        // Given a Dish sign-in of REF30 on device-a, and SPORTS1 starting on the same device
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let body = AuthNToken(
            guid: "carol", requestorID: "REF30", expires: now.addingTimeInterval(3600), mvpdID: "Dish",
            deviceFingerprint: DeviceFingerprint.make(deviceID: "device-a"))
        var storage = TokenStorage()
        storage.storeAuthentication(requestor: "REF30", mvpd: "Dish", authnToken: SignedToken.sign(body, with: Self.key).serialized, userMeta: nil)
        let allowed: [String: Set<String>] = ["REF30": ["Dish"], "SPORTS1": ["Dish"]]
        // When the SDK's silent SSO copies it for SPORTS1 (Dish has no authentication per requestor)
        let context = SSOContext(requestorID: "SPORTS1", allowedMvpds: ["Dish"], now: now, deviceID: "device-a")
        #expect(storage.copySSOToken(context) != nil)
        #expect(storage.hasValidAuthn(context))
        let reader = KnownApp(identity: AppIdentity(bundleID: "com.team.sports", teamID: "TEAM"), deviceID: "device-a", device: "phone")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("judge-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let device = ConsoleDevice(name: "phone", folder: DeviceFolder(root: root))
        let domain = StorageDomain(device: "phone", kind: .team, owner: "TEAM", file: try device.folder.teamShared(teamID: "TEAM"))
        try domain.store.update { $0 = storage }
        func copy(perRequestor: Set<String>) throws -> TokenReport {
            let report = StorageReport.domain(domain, apps: [reader], allowedMvpds: allowed, perRequestorMvpds: perRequestor, now: now)
            return try #require(report.programmers.first { $0.requestorID == "SPORTS1" }?.mvpds.first?.authn)
        }
        // Then the grid shows the copy as accepted by the backend
        let accepted = try copy(perRequestor: ["Cablevision"])
        let yes = try #require(accepted.verdicts.first { $0.rule == TokenJudge.requestorRule })
        #expect(yes.ok && yes.text.contains("signs in once for every Programmer"), "\(yes.text)")
        #expect(accepted.valid)
        // And once Dish signs in per Programmer, as counted by the SDK and refused by the backend
        let refused = try copy(perRequestor: ["Dish"])
        let binding = try #require(refused.verdicts.first { $0.rule == TokenJudge.requestorRule })
        #expect(!binding.ok && binding.text.contains("token_requestor_mismatch") && binding.text.contains("REF30"))
        #expect(!refused.valid && refused.next.contains("The SDK uses it"))
        let own = try #require(
            StorageReport.domain(domain, apps: [reader], allowedMvpds: allowed, perRequestorMvpds: ["Dish"], now: now)
                .programmers.first { $0.requestorID == "REF30" }?.mvpds.first?.authn)
        #expect(own.valid)
    }
}
