import Foundation
import Testing

/// Package.swift and the sources agree: every target declares each module of the package it imports, and imports
/// each dependency it declares. A module that is only reachable through another target's dependency builds today and
/// breaks when that other target drops it; a declared dependency nothing imports links for nothing.
struct ManifestImportsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A target of Package.swift: its name, its folder, the modules it declares (targets and products).
    struct Target {
        var name: String
        var folder: String
        var declared: Set<String>
    }

    /// The targets of the manifest, read from its `.target(…)`, `.testTarget(…)` and `.executableTarget(…)` calls.
    static func targets(in manifest: String) -> [Target] {
        var result: [Target] = []
        var rest = Substring(manifest)
        while let start = rest.firstMatch(of: /\.(target|testTarget|executableTarget)\(/) {
            let kind = String(start.1)
            var depth = 0
            var end = start.range.upperBound
            for index in rest[start.range.lowerBound...].indices {
                if rest[index] == "(" { depth += 1 }
                if rest[index] == ")" { depth -= 1; if depth == 0 { end = index; break } }
            }
            let call = rest[start.range.upperBound..<end]
            rest = rest[end...]
            guard let name = call.firstMatch(of: /name:\s*"([^"]+)"/)?.1 else { continue }
            var declared: Set<String> = []
            if let list = call.firstMatch(of: /dependencies:\s*\[([^\]]*)\]/)?.1 {
                // `.product(name: "Crypto", package: …)` names a module as much as `"Locking"` does.
                let withoutPackages = list.replacing(/package:\s*"[^"]*"/, with: "")
                declared = Set(withoutPackages.matches(of: /"([^"]+)"/).map { String($0.1) })
            }
            let folder = (kind == "testTarget" ? "Tests/" : "Sources/") + name
            result.append(Target(name: String(name), folder: folder, declared: declared))
        }
        return result
    }

    /// The modules a folder's Swift files import (`import X`, `@testable import X`, `import struct X.Y`).
    static func imports(inFolder folder: String) throws -> Set<String> {
        let directory = root.appendingPathComponent(folder)
        let files = (FileManager.default.subpaths(atPath: directory.path) ?? []).filter { $0.hasSuffix(".swift") }
        var modules: Set<String> = []
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            let pattern = /^\s*(?:@testable\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)/
            for match in text.matches(of: pattern.anchorsMatchLineEndings()) { modules.insert(String(match.1)) }
        }
        return modules
    }

    @Test func everyTargetDeclaresWhatItImportsAndImportsWhatItDeclares() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let targets = Self.targets(in: manifest)
        #expect(targets.count >= 15, "the manifest's targets were read")
        // Modules of this package and of its dependencies: anything else imported (Foundation, Glibc, Testing) is the
        // toolchain's.
        let known = Set(targets.map(\.name)).union(targets.flatMap(\.declared))
        var problems: [String] = []
        for target in targets where FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(target.folder).path) {
            let imported = try Self.imports(inFolder: target.folder).intersection(known)
            let undeclared = imported.subtracting(target.declared).subtracting([target.name])
            let unused = target.declared.subtracting(imported)
            if !undeclared.isEmpty { problems.append("\(target.name) imports \(undeclared.sorted()) without declaring it") }
            if !unused.isEmpty { problems.append("\(target.name) declares \(unused.sorted()) and never imports it") }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "; "))")
    }

    @Test func theReaderSeesDependenciesAndProducts() {
        let manifest = """
            .target(name: "A", dependencies: ["B", .product(name: "Crypto", package: "swift-crypto")]),
            .testTarget(name: "ATests", dependencies: ["A"]),
            """
        let targets = Self.targets(in: manifest)
        #expect(targets.map(\.name) == ["A", "ATests"])
        #expect(targets.first?.declared == ["B", "Crypto"])
        #expect(targets.last?.folder == "Tests/ATests")
    }
}
