import AccessEnabler
import Foundation
import MicroHTTP
import PassConsole
import PassHistory
import PassStorage
import PassTestSupport

/// A real console (`Console` from PassConsole) on 127.0.0.1 with a SQLite history, as `passconsole serve` runs it,
/// read over its HTTP API as support staff would.
struct RealConsole {
    let console: Console
    let client: TestHTTPClient
    var baseURL: URL { URL(string: console.baseURL)! }

    /// Starts a console on `port` (0: any free one) with a fresh history in `root`.
    static func start(port: UInt16 = 0, accessToken: String? = nil, root: URL) async throws -> RealConsole {
        var settings = ConsoleConfiguration(device: DeviceFolder(root: root.appendingPathComponent("device")))
        settings.host = "127.0.0.1"
        settings.port = port
        settings.accessToken = accessToken
        let history = try HistoryDatabase(path: root.appendingPathComponent("history-\(UUID().uuidString).sqlite").path)
        let console = Console(configuration: settings, history: history, logger: TestServer.logger)
        try await console.prepare()
        try console.start()
        return RealConsole(console: console, client: TestHTTPClient(baseURL: console.baseURL))
    }

    func stop() async { await console.shutdown() }

    var authorization: [String: String] {
        console.configuration.accessToken.map { ["Authorization": "Bearer \($0)"] } ?? [:]
    }

    /// The session's events as `GET /api/events` answers them (each event's wire JSON decoded), oldest first.
    func events(session: UUID) async throws -> [EntitlementEvent] {
        let page = try await client.get("/api/events?q=session:\(session.uuidString)&limit=1000", headers: authorization)
        let views = page.json["events"] as? [[String: Any]] ?? []
        let decoder = EntitlementEvent.Wire.decoder()
        return try views.compactMap { $0["event"] }.map {
            try decoder.decode(EntitlementEvent.self, from: JSONSerialization.data(withJSONObject: $0))
        }.sorted { $0.sequence < $1.sequence }
    }

    /// Events lost before reaching the history, as the overview counts them (reporters' `X-PassConsole-Dropped`).
    func ingestDropped() async throws -> Int? {
        let counts = try await client.get("/api/overview", headers: authorization).json["counts"] as? [String: Any]
        return counts?["ingestDropped"] as? Int
    }
}

/// A loopback port nothing listens on now: a server is started on a free port and stopped again.
func reserveFreePort() async throws -> UInt16 {
    struct Nothing: HTTPResponder {
        func respond(to request: Request) async -> Response { .empty() }
    }
    let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: Nothing(), logger: TestServer.logger)
    try server.start()
    let port = server.port
    await server.shutdown(gracePeriod: .seconds(1))
    return port
}

/// A fresh folder for a test, removed by the caller.
func temporaryFolder() throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("reporter-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    return root
}

/// Waits until `condition` holds, asking every 20 ms for up to `timeout` seconds (scaled by `TestTime`); returns
/// whether it held.
@discardableResult
func waitUntil(timeout: Double = 30, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(TestTime.seconds(timeout) * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
