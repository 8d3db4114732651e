import Foundation
import Testing

/// The browser code's dependency rule: `Public/features/<page>/` imports only `Public/lib/` and files of its own page,
/// and `Public/lib/` never imports a feature. Code two pages share lives in `lib/`, so a page can change, or go, alone.
struct PublicModuleImportsTests {
    /// One module's import: the file that imports, the specifier as written, the file it resolves to.
    struct Edge: CustomStringConvertible {
        var from: String
        var specifier: String
        var to: String
        var description: String { "\(from) imports '\(specifier)' (\(to))" }
    }

    static let root = URL(fileURLWithPath: ConsoleFixture.publicPath).standardizedFileURL

    /// Every relative `import … from '…'`, `export … from '…'` and `import('…')` of every `.js` file under `Public/`,
    /// with paths relative to `Public/`.
    static func edges() throws -> [Edge] {
        let files = try FileManager.default.subpathsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".js") }
        return try files.flatMap { file -> [Edge] in
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            let specifiers = text.matches(of: /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/.anchorsMatchLineEndings())
            return specifiers.map { match in
                let specifier = String(match.1)
                let target = root.appendingPathComponent(file).deletingLastPathComponent()
                    .appendingPathComponent(specifier).standardizedFileURL.path
                return Edge(from: file, specifier: specifier, to: String(target.dropFirst(root.path.count + 1)))
            }
        }
    }

    @Test func everyImportNamesAFileThatExists() throws {
        let edges = try Self.edges()
        #expect(edges.count > 50, "the scan found the imports")
        let missing = edges.filter { !FileManager.default.fileExists(atPath: Self.root.appendingPathComponent($0.to).path) }
        #expect(missing.isEmpty, "\(missing)")
    }

    /// Whether `edge` breaks the rule: a feature's file importing something outside `lib/` and its own page.
    static func crossesFeatures(_ edge: Edge) -> Bool {
        guard edge.from.hasPrefix("features/") else { return false }
        let page = edge.from.split(separator: "/")[1]
        return !edge.to.hasPrefix("lib/") && !edge.to.hasPrefix("features/\(page)/")
    }

    @Test func featuresImportOnlyLibAndTheirOwnFiles() throws {
        let crossing = try Self.edges().filter(Self.crossesFeatures)
        #expect(crossing.isEmpty, "a feature imports another feature; move the shared code to lib/: \(crossing)")
    }

    @Test func libNeverImportsAFeature() throws {
        let upward = try Self.edges().filter { $0.from.hasPrefix("lib/") && !$0.to.hasPrefix("lib/") }
        #expect(upward.isEmpty, "\(upward)")
    }

    @Test func theRuleSeesACrossFeatureImport() {
        // The check itself: the import the network page had before its shared code moved to lib/.
        let edge = Edge(from: "features/network/network-view.js", specifier: "../events/event-feed.js", to: "features/events/event-feed.js")
        #expect(Self.crossesFeatures(edge))
        #expect(!Self.crossesFeatures(Edge(from: edge.from, specifier: "../../lib/event-feed.js", to: "lib/event-feed.js")))
        #expect(!Self.crossesFeatures(Edge(from: edge.from, specifier: "./exchange-detail.js", to: "features/network/x.js")))
    }
}
