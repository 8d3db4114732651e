import Foundation
import PassConsoleReporter
import Testing

/// The reporter is what an app links in a debug build on iOS or tvOS: Foundation only, nothing of this package.
struct ReporterModuleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let sources = root.appendingPathComponent("Sources/PassConsoleReporter")

    /// Every `import` of the reporter's sources, with the `#if` it sits under (nil at the top level).
    static func imports() throws -> [(file: String, module: String, condition: String?)] {
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }.sorted()
        var found: [(String, String, String?)] = []
        for file in files {
            var conditions: [String] = []
            for line in try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8).split(separator: "\n") {
                let text = line.trimmingCharacters(in: .whitespaces)
                if text.hasPrefix("#if ") { conditions.append(String(text.dropFirst(4))) }
                if text.hasPrefix("#endif") { _ = conditions.popLast() }
                if let match = text.firstMatch(of: /^(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)/) {
                    found.append((file, String(match.1), conditions.last))
                }
            }
        }
        return found
    }

    @Test func theReporterImportsFoundationAndFoundationNetworkingOnly() throws {
        let imports = try Self.imports()
        #expect(imports.count >= 10, "the scan read the reporter's files")
        let others = imports.filter { !["Foundation", "FoundationNetworking"].contains($0.module) }
        #expect(others.isEmpty, "the reporter may import Foundation only: \(others.map { "\($0.file) imports \($0.module)" })")
        let networking = imports.filter { $0.module == "FoundationNetworking" }
        #expect(!networking.isEmpty)
        #expect(networking.allSatisfy { $0.condition == "canImport(FoundationNetworking)" },
            "FoundationNetworking only under #if canImport(FoundationNetworking) (Apple platforms have no such module)")
    }

    @Test func theManifestGivesTheReporterNoDependencyAndMakesItAProduct() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".target(name: "PassConsoleReporter")"#), "a target without dependencies")
        #expect(manifest.contains(#".library(name: "PassConsoleReporter", targets: ["PassConsoleReporter"])"#))
    }

    @Test func retriesWaitLongerEachTimeWithJitterAndNeverPastTheLongestWait() {
        let policy = ConsoleReporter.RetryPolicy(initialDelay: 0.5, maxDelay: 30, jitter: 0.5)
        #expect(policy.delay(afterFailures: 1, random: 0) == 0.5)
        #expect(policy.delay(afterFailures: 2, random: 0) == 1)
        #expect(policy.delay(afterFailures: 3, random: 0.5) == 1.5, "2 s less a quarter")
        #expect(policy.delay(afterFailures: 7, random: 0) == 30, "32 s capped at 30")
        #expect(policy.delay(afterFailures: 10_000, random: 0) == 30)
        #expect(policy.delay(afterFailures: 7, random: 1) == 15, "jitter takes off at most half")
        #expect(policy.delay(afterFailures: 1, random: 0, retryAfter: 12) == 12, "the console's Retry-After")
        #expect(policy.delay(afterFailures: 1, random: 0, retryAfter: 3600) == 30, "…up to the longest wait")
        let spread = Set((0..<50).map { _ in policy.delay(afterFailures: 4, random: Double.random(in: 0..<1)) })
        #expect(spread.count > 1 && spread.allSatisfy { (2...4).contains($0) })
    }

    @Test func numbersOutsideTheirRangesAreClampedToThem() async {
        let reporter = ConsoleReporter(configuration: .init(
            console: URL(string: "http://127.0.0.1:9")!, app: .init(bundleID: "b", teamID: "t"), deviceID: "d", capacity: 0,
            batchSize: 1_000_000, interval: -1, requestTimeout: .nan,
            retry: ConsoleReporter.RetryPolicy(initialDelay: 0, maxDelay: 1e9, jitter: 7, refusedAttempts: -3)))
        let configuration = reporter.configuration
        #expect(configuration.capacity == 1 && configuration.batchSize == 5_000)
        #expect(configuration.interval == 0 && configuration.requestTimeout == 1)
        #expect(configuration.retry == ConsoleReporter.RetryPolicy(initialDelay: 0.01, maxDelay: 3600, jitter: 1, refusedAttempts: 1))
        await reporter.finish(timeout: 0)
    }
}
