import Foundation
import MicroHTTP
import PassBackend
import PassConsole
import PassEvents
import PassHistory
import PassProxy
import PassStorage
import PassTestSupport
import Testing

/// A recording proxy (HTTPS with a local CA made for the test) in front of a real PassBackend on 127.0.0.1, recording
/// into a real console over an in-memory SQLite history.
struct ProxyFixture {
    let console: Console
    let history: HistoryDatabase
    let proxy: RecordingProxy
    let proxyURL: String
    let backendURL: String
    let ca: LocalCA
    let folder: URL

    static let configPath = BuiltBinary.packageRoot.appendingPathComponent("Config/demo.json").path

    static func with(upstream: String? = nil, timeout: TimeInterval = 15, _ body: (ProxyFixture) async throws -> Void) async throws {
        let configuration = try BackendConfiguration.load(path: configPath)
        let service = BackendService(configuration: configuration, logger: TestServer.logger)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestServer.with(PassBackend(service: service)) { backend, _ in
            var settings = ConsoleConfiguration(device: DeviceFolder(root: folder.appendingPathComponent("phone")), named: "phone")
            settings.port = 0
            let history = try HistoryDatabase.inMemory()
            let console = Console(configuration: settings, history: history, logger: TestServer.logger)
            try await console.prepare()
            let ca = try LocalCA.loadOrCreate(in: folder.appendingPathComponent("ca"))
            let proxy = RecordingProxy(
                upstream: URL(string: upstream ?? backend.baseURL)!, recording: console.servedEventSink,
                caCertificatePEM: ca.certificatePEM, timeout: timeout)
            var serverConfiguration = HTTPServerConfiguration()
            serverConfiguration.tls = try ca.issue(hosts: ["127.0.0.1", "localhost"])
            let server = HTTPServer(configuration: serverConfiguration, responder: proxy, logger: TestServer.logger)
            try server.start()
            console.attachProxy(proxy, url: server.baseURL)
            let fixture = ProxyFixture(
                console: console, history: history, proxy: proxy, proxyURL: server.baseURL, backendURL: backend.baseURL, ca: ca,
                folder: folder)
            do {
                try await body(fixture)
            } catch {
                await server.shutdown(gracePeriod: .seconds(1))
                await console.shutdown()
                throw error
            }
            await server.shutdown(gracePeriod: .seconds(1))
            await console.shutdown()
        }
    }

    /// The CA's certificate as a file (what a device is given to trust).
    var caFile: URL {
        let file = folder.appendingPathComponent("ca-download.pem")
        try? Data(ca.certificatePEM.utf8).write(to: file)
        return file
    }

    /// `curl` through the proxy trusting the local CA; returns the status and the body.
    func curl(_ path: String, method: String = "GET", body: String? = nil, headers: [String] = []) async throws
        -> (status: Int, body: String, headers: String)
    {
        let output = folder.appendingPathComponent("curl-\(UUID().uuidString.prefix(6)).out")
        let head = folder.appendingPathComponent("curl-head-\(UUID().uuidString.prefix(6)).out")
        var arguments = ["-s", "-o", output.path, "-D", head.path, "-w", "%{http_code}", "--cacert", caFile.path, "-X", method]
        for header in headers { arguments += ["-H", header] }
        if let body { arguments += ["--data-binary", body] }
        arguments.append(proxyURL + path)
        let status = folder.appendingPathComponent("curl-status-\(UUID().uuidString.prefix(6))")
        let process = try ChildProcess("/usr/bin/curl", arguments, stdout: .file(status))
        _ = await process.exited()
        let code = Int((try? String(contentsOf: status, encoding: .utf8)) ?? "") ?? 0
        return (code, (try? String(contentsOf: output, encoding: .utf8)) ?? "", (try? String(contentsOf: head, encoding: .utf8)) ?? "")
    }

    /// The stored served exchanges, once `ready` holds of them (recorded events reach the history in batches).
    func served(until ready: ([HTTPExchange]) -> Bool) async throws -> [(event: EntitlementEvent, exchange: HTTPExchange)] {
        var found: [(EntitlementEvent, HTTPExchange)] = []
        for _ in 0..<200 {
            let page = try await history.page(matching: HistoryFilter(), after: nil, limit: 1000)
            found = page.events.compactMap { stored in
                guard case .httpExchange(let exchange) = stored.event.kind, exchange.served != nil else { return nil }
                return (stored.event, exchange)
            }
            if ready(found.map(\.1)) { return found }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the recorded exchanges never got there: \(found.map { $0.1.url })")
        return found
    }

    /// A console API request (in-process), as the console's page sends it; returns the status and the JSON.
    func send(_ method: String, _ path: String, json: String) async throws -> (status: Int, json: [String: Any]) {
        let request = Request(
            method: method, path: path, queryItems: [],
            headers: [("Host", "127.0.0.1:8080"), ("X-PassConsole-CSRF", console.csrfToken), ("Content-Type", "application/json")],
            body: Data(json.utf8), remoteAddress: "127.0.0.1")
        let response = await console.respond(to: request)
        return (response.status.code, (try? JSONSerialization.jsonObject(with: response.bodyData) as? [String: Any]) ?? [:])
    }

    /// A console API answer (in-process).
    func get(_ path: String) async throws -> [String: Any] {
        let parts = path.split(separator: "?", maxSplits: 1)
        let request = Request(
            method: "GET", path: String(parts[0]), queryItems: parts.count > 1 ? FormEncoding.decode(String(parts[1])) : [],
            headers: [("Host", "127.0.0.1:8080")], body: Data(), remoteAddress: "127.0.0.1")
        let response = await console.respond(to: request)
        try #require(response.status.code == 200, "\(path): \(response.status.code)")
        return try #require(try JSONSerialization.jsonObject(with: response.bodyData) as? [String: Any])
    }
}
