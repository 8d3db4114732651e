import Foundation
import Testing

/// No synchronous test blocks its thread waiting. Swift Testing runs a synchronous test on one of the concurrency
/// pool's threads (two on a 2-core machine); a test that waits there on a semaphore, a child process or a sleep holds
/// that thread, and every server the test process runs answers late meanwhile: in whole-suite runs, requests of
/// other tests timed out (a backend check after 2 s, an SDK request after 20 s). Such waits belong in an `async`
/// test, behind `BlockingWork.run`, `ChildProcess.exited()` or `Task.sleep`.
struct NoBlockingTestsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Calls that block the calling thread.
    static let blocking = [".wait()", ".wait(timeout:", "waitUntilExit()", "usleep(", "Thread.sleep(", "readBlocking(", "sleep(UInt32"]

    /// `(file, test, call)` for each synchronous `@Test` function of `source` whose body makes a blocking call.
    static func offenders(in source: String, file: String) -> [String] {
        var found: [String] = []
        for match in source.matches(of: /@Test[^\n]*\n?\s*func (\w+)\([^)]*\)([^{]*)\{/) {
            guard !match.2.contains("async") else { continue }
            var depth = 1
            var index = match.range.upperBound
            while depth > 0, index < source.endIndex {
                if source[index] == "{" { depth += 1 }
                if source[index] == "}" { depth -= 1 }
                index = source.index(after: index)
            }
            let body = source[match.range.upperBound..<index]
            for call in blocking where body.contains(call) { found.append("\(file): \(match.1) calls \(call)") }
        }
        return found
    }

    @Test func noSynchronousTestWaitsOnTheConcurrencyPool() throws {
        let tests = Self.root.appendingPathComponent("Tests")
        let files = try #require(FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)?.allObjects as? [URL])
        let swift = files.filter { $0.pathExtension == "swift" }
        #expect(swift.count > 100, "the test sources were not found at \(tests.path)")
        var offenders: [String] = []
        for file in swift {
            offenders += Self.offenders(in: try String(contentsOf: file, encoding: .utf8), file: file.lastPathComponent)
        }
        #expect(offenders.isEmpty, "make these tests async and wait off the pool: \(offenders)")
    }

    @Test func theCheckFindsABlockingSynchronousTestAndLetsAnAsyncOnePass() {
        // spelled in pieces, so this file's own text is not what the scan above finds
        let (test, wait) = ("@" + "Test", "." + "wait()")
        let source = """
            \(test) func blocks() throws {
                let done = DispatchSemaphore(value: 0)
                if true { done\(wait) }
            }
            \(test) func waitsProperly() async throws {
                _ = await BlockingWork.run { done\(wait) }
            }
            """
        #expect(Self.offenders(in: source, file: "x.swift") == ["x.swift: blocks calls \(wait)"])
    }
}
