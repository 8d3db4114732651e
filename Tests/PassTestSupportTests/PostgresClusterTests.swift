import Foundation
import PassTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The throwaway PostgreSQL cluster the PostgreSQL history's tests use: a real server, run as an unprivileged user,
/// gone when the test process is.
@Suite("PostgresCluster")
struct PostgresClusterTests {
    /// Set in a child test process: where ``childStartsACluster()`` reports its cluster (`<server pid> <folder>`).
    static let reportVariable = "PASS_TEST_PG_CLUSTER_REPORT"
    /// Set too when the child should wait to be killed instead of exiting.
    static let hangVariable = "PASS_TEST_PG_CLUSTER_HANG"

    @Test("the shared cluster answers on 127.0.0.1, runs as an unprivileged user and makes a database per call")
    func sharedClusterRuns() async throws {
        let cluster = try await PostgresCluster.shared()
        #expect(try await PostgresCluster.shared() === cluster)
        let server = try #require(cluster.serverPID)
        let owner = try Self.uid(of: server)
        if getuid() == 0 {
            #expect(owner != 0, "PostgreSQL must not run as root")
            #expect(cluster.osUser != nil)
        } else {
            #expect(owner == getuid())
        }
        let first = try await cluster.createDatabase(), second = try await cluster.createDatabase()
        #expect(first != second)
        // The port takes TCP connections on loopback.
        #expect(Self.acceptsConnection(port: cluster.port))
    }

    @Test("a test process's cluster is stopped and removed when the process exits")
    func goneAfterExit() async throws {
        let (child, server, folder) = try await Self.startChild(hang: false)
        #expect(await child.exited() == 0)
        #expect(!Self.isAlive(server), "the server outlived its test process")
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test("a cluster left by a killed test process is stopped and removed by the next start")
    func staleClusterRemoved() async throws {
        let (child, server, folder) = try await Self.startChild(hang: true)
        child.terminate(SIGKILL)
        #expect(await child.exited() == 128 + SIGKILL)
        // Killed: no exit handler ran, the server is still there.
        #expect(Self.isAlive(server))
        PostgresCluster.removeStaleClusters()
        #expect(!Self.isAlive(server))
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    /// Not a test of its own: what the child process runs (skipped unless ``reportVariable`` is set).
    @Test(.enabled(if: ProcessInfo.processInfo.environment[reportVariable] != nil))
    func childStartsACluster() async throws {
        let environment = ProcessInfo.processInfo.environment
        let cluster = try await PostgresCluster.shared()
        let report = "\(try #require(cluster.serverPID)) \(cluster.folder.path)"
        try report.write(toFile: try #require(environment[Self.reportVariable]), atomically: true, encoding: .utf8)
        if environment[Self.hangVariable] != nil { try await Task.sleep(for: .seconds(300)) }
    }

    /// Runs this test bundle again with only ``childStartsACluster()``; returns once it has reported its cluster.
    static func startChild(hang: Bool) async throws -> (ChildProcess, pid_t, String) {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("pg-child-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: report) }
        var environment = ProcessInfo.processInfo.environment
        environment[reportVariable] = report.path
        if hang { environment[hangVariable] = "1" }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("pg-child-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let child = try ChildProcess(CommandLine.arguments[0], ["--testing-library", "swift-testing", "--filter", "childStartsACluster"],
            environment: environment, stdout: .file(log), stderr: .file(log))
        let deadline = ContinuousClock.now + .seconds(TestTime.seconds(120))
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOf: report, encoding: .utf8), let space = text.firstIndex(of: " "),
                let pid = pid_t(text[..<space])
            {
                return (child, pid, String(text[text.index(after: space)...]))
            }
            if !child.isRunning { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        child.terminate(SIGKILL)
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw ChildFailure(description: "the child test process reported no cluster:\n\(output.suffix(3000))")
    }

    static func uid(of pid: pid_t) throws -> uid_t {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Uid:") })
        return try #require(line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first.flatMap { uid_t($0) })
    }

    static func isAlive(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        // A zombie has exited.
        let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: ")").last?.dropFirst().first
        return state != "Z"
    }

    static func acceptsConnection(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// A child test process that did not do its part.
struct ChildFailure: Error, CustomStringConvertible {
    let description: String
}
