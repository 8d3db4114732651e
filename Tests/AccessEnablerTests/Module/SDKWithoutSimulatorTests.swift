import Foundation
import Testing

/// The SDK is what an iOS app links: nothing that stands in for the device (the headless web view, the simulated
/// platform SSO, the device folder's configuration, the simulated app) may live in it or be imported by it.
@Suite struct SDKWithoutSimulatorTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every Swift source of the AccessEnabler target, with its path.
    static func sdkSources() throws -> [(path: String, text: String)] {
        let root = repository.appending(path: "Sources/AccessEnabler")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return try files.filter { $0.pathExtension == "swift" }.map { ($0.path, try String(contentsOf: $0, encoding: .utf8)) }
    }

    @Test func sdkSourcesDeclareNoSimulatorType() throws {
        let sources = try Self.sdkSources()
        #expect(sources.count > 20)
        let declarations = [
            "class HeadlessWebView", "struct SimulatedPlatformServices", "class SimulatedApp", "func simulated(",
            "struct Form:", "import PassSimulator", "struct DeviceProfile", "enum DeviceIdentity",
        ]
        for (path, text) in sources {
            for declaration in declarations {
                #expect(!text.contains(declaration), "\(path) has \(declaration): the simulator belongs in PassSimulator")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: Self.repository.appending(path: "Sources/AccessEnabler/WebView").path))
    }

    @Test func sdkTargetDoesNotDependOnTheSimulator() throws {
        let manifest = try String(contentsOf: Self.repository.appending(path: "Package.swift"), encoding: .utf8)
        let start = try #require(manifest.range(of: "name: \"AccessEnabler\",\n            dependencies: ["))
        let end = try #require(manifest.range(of: "]", range: start.upperBound..<manifest.endIndex))
        let dependencies = manifest[start.upperBound..<end.lowerBound]
        #expect(dependencies.contains("PassProtocol"))
        #expect(!dependencies.contains("PassSimulator"))
        #expect(!dependencies.contains("PassBackend"))
    }

    /// The SDK builds no MVPD page path itself: those are ``PassProtocol/MVPDEndpoint``'s, used by the simulator.
    @Test func sdkSourcesBuildNoMVPDPagePath() throws {
        for (path, text) in try Self.sdkSources() {
            #expect(!text.contains("platform-signin"), "\(path) names an MVPD page path")
            #expect(!text.contains("\"mvpd/"), "\(path) names an MVPD page path")
        }
    }
}
