import HistoryTestSupport
import Foundation
import PassHistory
import PassTestSupport
import Testing

/// `passconsole serve` checks its history before anything starts: a damaged file stops start-up with the file's
/// name and what to do; `--history-recover` moves it aside (kept) and starts a fresh one, saying so.
@Suite(.serialized)
struct HistoryStartupTests {
    func folderWithDamagedHistory() async throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("health-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("history.sqlite").path
        try await HistoryFaults.filledFile(path)
        try HistoryFaults.overwriteMiddlePages(of: path)
        return folder
    }

    @Test func aDamagedHistoryStopsStartUpNamingTheFileAndWhatToDo() async throws {
        let folder = try await folderWithDamagedHistory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = try #require(BuiltBinary.passconsole, Comment(rawValue: BuiltBinary.missingMessage))
        let history = folder.appendingPathComponent("history.sqlite").path
        let output = folder.appendingPathComponent("serve.out")
        let process = try ChildProcess(binary.path(percentEncoded: false),
            ["serve", "--port", "0", "--backend-port", "0", "--device", folder.appendingPathComponent("device").path, "--history", history],
            directory: BuiltBinary.packageRoot, stdout: .file(output), stderr: .file(output))
        let code = await process.exited()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(code != 0, "serve started on a damaged history: \(text)")
        #expect(text.contains("The history \(history) is damaged"), "\(text)")
        #expect(text.contains("--history-recover"))
        #expect(!text.contains("Console:"))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!names.contains { $0.contains(".damaged-") }, "nothing is moved without --history-recover")
    }

    @Test func withHistoryRecoverTheDamagedFileIsMovedAsideAndAFreshHistoryStarts() async throws {
        let folder = try await folderWithDamagedHistory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let damagedSize = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("history.sqlite").path)[.size] as? Int
        let (process, url) = try await ServeProcess.start(folder, arguments: ["--history-recover"])
        defer { process.terminate() }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let aside = try #require(names.first { $0.hasPrefix("history.sqlite.damaged-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") })
        let asidePath = folder.appendingPathComponent(aside).path
        #expect(try FileManager.default.attributesOfItem(atPath: asidePath)[.size] as? Int == damagedSize)
        #expect(try FileManager.default.attributesOfItem(atPath: asidePath)[.posixPermissions] as? Int == 0o600)
        let printed = try names.filter { $0.hasPrefix("serve-") && $0.hasSuffix(".out") }
            .map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }.joined()
        #expect(printed.contains("was damaged: moved aside to \(asidePath)"), "\(printed)")
        let overview = try await TestHTTPClient(baseURL: url).get("/api/overview").json
        #expect((overview["history"] as? [String: Any])?["state"] as? String == "ok")
        #expect((try await TestHTTPClient(baseURL: url).get("/api/sessions?q=com.health.test").json["sessions"] as? [Any])?.isEmpty == true)
        let history = folder.appendingPathComponent("history.sqlite").path
        #expect(try FileManager.default.attributesOfItem(atPath: history)[.posixPermissions] as? Int == 0o600)
    }
}
