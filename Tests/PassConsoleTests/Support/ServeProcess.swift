import Foundation
import PassTestSupport
import Testing

/// `passconsole serve` started as `make run` starts it, on free ports with its files in a folder of the test's.
enum ServeProcess {
    /// Starts it; returns the process and the console's URL as printed (with `?token=` when it needs one).
    static func start(_ folder: URL, arguments: [String] = [], environment: [String: String]? = nil) async throws
        -> (ChildProcess, String)
    {
        let (process, urls) = try await startWithURLs(folder, arguments: arguments, environment: environment)
        return (process, urls.printed)
    }

    /// Starts it on the history `history` names (a file's path or a `postgres://` URL; `nil`: the folder's
    /// `history.sqlite`).
    static func start(_ folder: URL, history: String?, arguments: [String] = []) async throws -> (ChildProcess, String) {
        let (process, urls) = try await startWithURLs(folder, history: history, arguments: arguments)
        return (process, urls.printed)
    }

    /// Starts it; returns the process, the console's base URL, the backend's, and the console's URL as printed.
    static func startWithURLs(
        _ folder: URL, history: String? = nil, arguments: [String] = [], environment: [String: String]? = nil, stderr: URL? = nil
    ) async throws
        -> (ChildProcess, (console: String, backend: String, printed: String))
    {
        let binary = try #require(BuiltBinary.passconsole, Comment(rawValue: BuiltBinary.missingMessage))
        let output = folder.appendingPathComponent("serve-\(UUID().uuidString.prefix(6)).out")
        let process = try ChildProcess(
            binary.path(percentEncoded: false),
            ["serve", "--port", "0", "--backend-port", "0", "--device", folder.appendingPathComponent("device").path,
             "--history", history ?? folder.appendingPathComponent("history.sqlite").path] + arguments,
            environment: environment, directory: BuiltBinary.packageRoot, stdout: .file(output),
            stderr: stderr.map { .file($0) } ?? .null)
        let deadline = Date().addingTimeInterval(TestTime.seconds(90))  // start-up, not a speed bound
        while Date() < deadline {
            let lines = ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n")
            // Behind a proxy (`--public-url`) the line reads `Console: https://name/  (listening on http://127.0.0.1:P)`
            if let console = url(lines, "listening on") ?? url(lines, "Console:"), let backend = url(lines, "Backend:"),
                let printed = lines.first(where: { $0.contains("Console:") })?.split(separator: " ").first(where: { $0.contains("://") })
            {
                return (process, (console, backend, String(printed).trimmingCharacters(in: CharacterSet(charactersIn: "/"))))
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.terminate()
        Issue.record("serve printed no console URL: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
        throw CancellationError()
    }

    /// `http://127.0.0.1:PORT` from the line holding `label` (the first `http://` URL after it, path dropped).
    private static func url(_ lines: [Substring], _ label: String) -> String? {
        guard let line = lines.first(where: { $0.contains(label) }),
            let word = line.components(separatedBy: label).last?.split(separator: " ").first(where: { $0.hasPrefix("http://") }),
            let components = URLComponents(string: word.trimmingCharacters(in: CharacterSet(charactersIn: "()"))), let host = components.host, let port = components.port
        else { return nil }
        return "http://\(host):\(port)"
    }
}
