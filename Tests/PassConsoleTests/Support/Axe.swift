import Foundation
import PassTestSupport

/// axe-core, Deque's accessibility rules engine, run in the page under test. Its `axe.min.js` is not committed:
/// `Tests/fetch-axe.sh` takes it from PyPI's axe-selenium-python wheel (one pinned version, checked by its SHA-256)
/// into `.build/axe/`; `make test` runs that script first, and so does `source()` when the file is missing.
enum Axe {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let scriptFile = repository.appendingPathComponent(".build/axe/axe.min.js")

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// The engine's source, fetched once per test run when it is not there yet.
    static func source() throws -> String {
        try loaded.get()
    }

    private static let loaded: Result<String, Unavailable> = Result(catching: {
        if !FileManager.default.fileExists(atPath: scriptFile.path) { try fetch() }
        guard let text = try? String(contentsOf: scriptFile, encoding: .utf8) else {
            throw Unavailable(description: "cannot read \(scriptFile.path)")
        }
        return text
    }).mapError { $0 as? Unavailable ?? Unavailable(description: "\($0)") }

    private static func fetch() throws {
        let process = Process()
        process.executableURL = repository.appendingPathComponent("Tests/fetch-axe.sh")
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Unavailable(
                description: "the accessibility check needs axe-core and Tests/fetch-axe.sh could not get it:\n\(said)")
        }
    }

    /// Runs every rule axe runs by default (WCAG 2 A and AA, and its best practices) on the whole page as it is now,
    /// and returns one line per violation: rule, impact, what it asks, and the elements that break it.
    /// Running the source as the script itself (not a `<script>` element) keeps it clear of the page's
    /// Content-Security-Policy.
    static func violations(in browser: WebDriver) async throws -> [String] {
        if try await browser.run("return typeof window.axe === 'object';") as? Bool != true {
            try await browser.run(try source() + "\n;return typeof window.axe;")
        }
        let answer = try await browser.runAsync(
            #"""
            const done = arguments[arguments.length - 1];
            window.axe.run(document, { resultTypes: ['violations'] })
              .then((results) => done(results.violations.map((v) => {
                const nodes = v.nodes.map((n) => n.target.join(' ') + (v.id === 'color-contrast' ? ` (${n.any[0]?.message ?? ''})` : ''));
                return `${v.id} (${v.impact}): ${v.help} — ${nodes.length} element(s): ${nodes.slice(0, 8).join(' | ')}`;
              })))
              .catch((error) => done([`axe.run failed: ${error}`]));
            """#, timeout: 60)
        return answer as? [String] ?? ["axe.run gave no list: \(String(describing: answer))"]
    }
}
