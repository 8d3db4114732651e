import Foundation

/// The package's built executables, for tests that run them as a user would.
public enum BuiltBinary {
    /// The package root (where `Package.swift` is).
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built `passconsole`: `PASSCONSOLE_BINARY`, else next to the test bundle, else `.build/debug`.
    public static let passconsole: URL? = {
        let fileManager = FileManager.default
        var candidates: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["PASSCONSOLE_BINARY"] {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        // Linux: the test bundle is an executable in the build folder; macOS: a .xctest bundle in it.
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent())
        }
        if let first = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug"))
        for candidate in candidates {
            let file = candidate.lastPathComponent == "passconsole" ? candidate : candidate.appendingPathComponent("passconsole")
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                fileManager.isExecutableFile(atPath: file.path)
            {
                return file
            }
        }
        return nil
    }()

    /// Why a test needing `passconsole` could not run.
    public static let missingMessage =
        "the passconsole binary was not found next to the test bundle or in .build/debug: build it first (swift build), or set PASSCONSOLE_BINARY"
}
