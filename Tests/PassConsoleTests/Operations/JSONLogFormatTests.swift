import Foundation
import PassTestSupport
import Testing

/// `passconsole serve --log-format json`: the real process writes its log as one JSON object per line (time, level,
/// label, message, metadata), for a log shipper; stdout still carries the URLs it prints.
@Suite(.serialized)
struct JSONLogFormatTests {
    @Test func serveWritesOneJSONObjectPerLine() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jsonlog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("serve.log")
        let (process, urls) = try await ServeProcess.startWithURLs(folder, arguments: ["--log-format", "json", "--no-demo"], stderr: log)
        #expect(try await TestHTTPClient(baseURL: urls.console).send("GET", "/healthz").status == 200)
        process.terminate()
        _ = await process.exited()
        let text = try String(contentsOf: log, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "the log ends with a newline")
        let objects = try lines.dropLast().map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        // Both servers said they listen, and said they stopped, at least
        #expect(objects.count >= 4, "\(text)")
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for object in objects {
            #expect((object["time"] as? String).flatMap(iso.date(from:)) != nil, "\(object)")
            #expect(["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(object["level"] as? String ?? ""))
            #expect((object["label"] as? String)?.hasPrefix("passconsole") == true, "\(object)")
            #expect(object["message"] is String)
        }
        let listening = objects.filter { $0["message"] as? String == "listening" }
        #expect(listening.count == 2, "\(text)")
        #expect(listening.contains { ($0["metadata"] as? [String: Any])?["address"] as? String == urls.console.replacingOccurrences(of: "http://", with: "") },
            "\(listening)")
    }
}
