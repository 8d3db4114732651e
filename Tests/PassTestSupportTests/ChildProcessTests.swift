import Foundation
import PassTestSupport
import Testing

/// The posix_spawn launcher every test that starts a process goes through.
struct ChildProcessTests {
    @Test func exitCodeEnvironmentAndOutputReachTheTest() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out")
        // When a shell prints its variable and working folder, then exits 3
        let child = try ChildProcess(
            "/bin/sh", ["-c", #"printf '%s %s' "$GREETING" "$(pwd)"; exit 3"#], environment: ["GREETING": "hello"],
            directory: folder, stdout: .file(output))
        // Then the code, the environment and the folder are what was asked for
        #expect(await child.exited() == 3)
        #expect(!child.isRunning)
        #expect(try String(contentsOf: output, encoding: .utf8) == "hello \(folder.resolvingSymlinksInPath().path)")
    }

    @Test func aSignalEndsTheChildWith128PlusItsNumber() async throws {
        let child = try ChildProcess("/bin/sleep", ["30"])
        #expect(child.isRunning)
        child.terminate(SIGKILL)
        #expect(await child.exited() == 128 + SIGKILL)
    }

    @Test func theChildInheritsNoDescriptorBeyondTheStandardThree() async throws {
        // Given a descriptor open in the test process without close-on-exec
        let fd = open("/dev/null", O_RDONLY)
        defer { close(fd) }
        // Then the child does not see it
        let child = try ChildProcess("/bin/sh", ["-c", "[ ! -e /proc/self/fd/\(fd) ]"])
        #expect(await child.exited() == 0)
    }

    @Test func aMissingExecutableIsAnErrorWithItsName() {
        #expect(throws: ChildProcess.LaunchError.self) { try ChildProcess("/nonexistent/tool", []) }
    }
}
