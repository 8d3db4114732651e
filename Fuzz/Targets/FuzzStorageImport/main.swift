import AccessEnabler
import Foundation
import FuzzDriver
@testable import PassConsole
import PassStorage

/// The storage import decoder: a file planned for import into a team domain (PassConsole export, storage file of the
/// current version, or a version 1–2 file through the token importer), every token judged, and the plan encoded as
/// the API answers it.
enum Fixture {
    static let root = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-storage-\(getpid())")
    static let domain: StorageDomain = {
        let device = ConsoleDevice(name: "phone", folder: DeviceFolder(root: root.appendingPathComponent("phone")))
        return try! StorageDomain(id: "phone/team:TEAM1234", devices: [device])
    }()
    /// An app that reads the domain, so the device rule is judged too.
    static let reader = KnownApp(
        identity: AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234"), deviceID: "fuzz-device", device: "phone")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStorageImport(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Data(bytes: data, count: size)
    for (policy, includeRefused) in [(ImportPlan.Policy.overwrite, false), (.skip, true)] {
        let context = ImportPlan.Context(
            policy: policy, includeRefused: includeRefused, allowedMvpds: ["REF30": ["Dish"]], verificationKey: nil,
            readers: [Fixture.reader], now: Date(timeIntervalSince1970: 1_800_000_000))
        guard let plan = try? ImportPlan.make(bytes, into: Fixture.domain, current: TokenStorage(), context) else { continue }
        _ = plan.summary
        _ = try? APICoding.encode(plan)
    }
    _ = try? JSONDecoder().decode(TokenStorage.self, from: bytes)
    _ = try? JSONDecoder().decode(LegacyTokenStorage.self, from: bytes)
    return 0
}

runLibFuzzer(fuzzStorageImport)
