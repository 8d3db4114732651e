import Foundation
import FuzzDriver
import MicroHTTP
@testable import PassBackend
import PassProtocol

/// The REST `Authorization` header: the legacy HMAC header parser and the checks after it (app, signature, method,
/// path, freshness), and bearer tokens, against the demo configuration.
enum Fixture {
    static let service: BackendService = {
        let config = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Config/demo.json").path
        return BackendService(configuration: try! BackendConfiguration.load(path: config))
    }()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRESTAuthorization(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let header = String(decoding: Data(bytes: data, count: size), as: UTF8.self)
    if let parsed = try? LegacyAuthorization.parse(header) {
        _ = parsed.verifySignature(secret: "demo-secret-change-me")
        _ = parsed.isFresh(at: Date(), window: 600)
        _ = parsed.matchesPath("/api/v1/authorize")
    }
    let request = Request(method: "GET", path: "/api/v1/authorize", headers: [("Authorization", header)])
    _ = try? Fixture.service.authenticateClient(request)
    return 0
}

runLibFuzzer(fuzzRESTAuthorization)
