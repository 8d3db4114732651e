import AccessEnabler
import Foundation
import HistoryTestSupport
import MicroHTTP
import PassBackend
import PassEvents
import PassConsole
import PassHistory
import PassProtocol
import PassStorage
import PassTestSupport
import Locking
import Testing

/// A console over a real PassBackend (demo data) on 127.0.0.1, a fresh device folder (a phone and a TV) and a fresh
/// history (a SQLite file, or with `history: .postgres` a new database of the tests' throwaway PostgreSQL cluster),
/// with the demo's three apps added (not started). Requests go in-process through `respond(to:)`
/// unless a test starts the console on a port.
struct ConsoleFixture {
    let console: Console
    /// The console's history when it is a SQLite file (for its faults, its path and direct writes).
    var sqlite: HistoryDatabase { console.sqlite! }
    let backend: BackendService
    let backendURL: String
    let root: URL
    let clock: TestClock

    static let configPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config/demo.json").path

    static let publicPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Public").path

    /// A clock the test moves; the console and its apps judge tokens by it.
    final class TestClock: Sendable {
        private let offset = Mutex<TimeInterval>(0)
        func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }
        func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
    }

    static func with(
        history backend: HistoryBackend = .sqlite, accessToken: String? = nil, host: String = "127.0.0.1",
        publicURL: String? = nil, historyInMemory: Bool = false, recordBackend: Bool = false,
        configure: (inout ConsoleConfiguration) -> Void = { _ in },
        _ body: (ConsoleFixture) async throws -> Void
    ) async throws {
        let configuration = try BackendConfiguration.load(path: configPath)
        let clock = TestClock()
        let service = BackendService(configuration: configuration, logger: TestServer.logger)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        // With `recordBackend`, the backend records what it serves into this console, as under `passconsole serve`.
        let relay = RelaySink()
        try await TestServer.with(PassBackend(service: service, recording: recordBackend ? relay : nil)) { server, _ async throws in
            var settings = ConsoleConfiguration(
                device: DeviceFolder(root: root.appendingPathComponent("phone")), named: "phone",
                more: [ConsoleDevice(name: "tv", folder: DeviceFolder(root: root.appendingPathComponent("tv")))])
            settings.port = 0
            settings.host = host
            settings.accessToken = accessToken
            settings.publicURL = publicURL
            settings.publicDirectory = publicPath
            settings.backendURL = server.baseURL
            settings.now = { [clock] in clock.now() }
            // the shared test backend answers late when the whole suite starts at once: /healthz tests ask whether it
            // is there, not how fast
            settings.backendCheckTimeout = .seconds(TestTime.seconds(30))
            configure(&settings)
            let catalog = Console.Catalog(
                allowedMvpds: Dictionary(uniqueKeysWithValues: configuration.programmers.map { ($0.id, Set($0.mvpds)) }),
                verificationKey: service.signingKey.publicKey,
                demoSubscribers: configuration.subscribers,
                liveRequestors: { service.requestorConfigurations() })
            let history: any EventHistory = historyInMemory
                ? try HistoryDatabase.inMemory() : try await backend.open(sqlitePath: root.appendingPathComponent("history.sqlite").path)
            let console = Console(configuration: settings, history: history, catalog: catalog, logger: TestServer.logger)
            if recordBackend { relay.attach(console.servedEventSink) }
            try await console.prepare()
            let provider = URL(string: server.baseURL + "/adobe-services")!
            let mvpds = { (requestor: String) in
                configuration.programmers.first { $0.id == requestor }!.mvpds.map { id in
                    let mvpd = configuration.mvpds.first { $0.id == id }!
                    return ConsoleAppSpec.MVPDChoice(id: id, displayName: mvpd.displayName, signIn: mvpd.loginPage.summary)
                }
            }
            let resources = configuration.resources.map(\.id)
            try console.addApp(ConsoleAppSpec(
                id: "news-ios", name: "News", app: AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234"),
                requestorID: "REF30", resources: resources, mvpds: mvpds("REF30")), device: "phone", serviceProvider: provider)
            try console.addApp(ConsoleAppSpec(
                id: "sports-ios", name: "Sports", app: AppIdentity(bundleID: "com.example.news.sports", teamID: "TEAM1234"),
                requestorID: "SPORTS1", resources: resources, mvpds: mvpds("SPORTS1")), device: "phone", serviceProvider: provider)
            let kids = configuration.apps.first { $0.requestorID == "KIDSNET" }!
            try console.addApp(ConsoleAppSpec(
                id: "kids-tvos", name: "Kids TV", app: AppIdentity(bundleID: "com.kidsnet.tv.app", teamID: "KIDS5678", platform: .tvOS),
                requestorID: "KIDSNET", publicKey: kids.publicKey, secret: kids.secret, resources: resources,
                mvpds: mvpds("KIDSNET")), device: "tv", serviceProvider: provider)
            let fixture = ConsoleFixture(console: console, backend: service, backendURL: server.baseURL, root: root, clock: clock)
            do {
                try await body(fixture)
                await console.shutdown()
                await HistoryBackend.close(history)
            } catch {
                await console.shutdown()
                await HistoryBackend.close(history)
                throw error
            }
        }
    }

    // MARK: - Requests (in-process)

    /// The headers the console's own page sends.
    var pageHeaders: [(String, String)] { [("Host", "127.0.0.1:8080"), (AccessGuardHeader.csrf, console.csrfToken)] }

    /// The demo phone's team storage as stored, once the apps' pending writes have landed (the SDK writes behind its
    /// calls; a reader beside running apps waits for them, as the console does).
    func phoneTeamStorage() throws -> Data? {
        AccessEnabler.waitForAllStorageWrites(in: [root])
        return try DeviceFolder(root: root.appendingPathComponent("phone")).teamShared(teamID: "TEAM1234").read()
    }

    func get(_ path: String, headers: [(String, String)] = [("Host", "127.0.0.1:8080")]) async -> APIAnswer {
        await send("GET", path, headers: headers)
    }

    func post(_ path: String, json: String = "{}", headers: [(String, String)]? = nil) async -> APIAnswer {
        await send("POST", path, headers: (headers ?? pageHeaders) + [("Content-Type", "application/json")], body: Data(json.utf8))
    }

    func post(_ path: String, body: Data, headers: [(String, String)]? = nil) async -> APIAnswer {
        await send("POST", path, headers: headers ?? pageHeaders, body: body)
    }

    func send(_ method: String, _ path: String, headers: [(String, String)], body: Data = Data()) async -> APIAnswer {
        let parts = path.split(separator: "?", maxSplits: 1)
        let query = parts.count > 1 ? FormEncoding.decode(String(parts[1])) : []
        let request = Request(method: method, path: String(parts[0]), queryItems: query, headers: headers, body: body,
            remoteAddress: "127.0.0.1")
        var response = console.respondInline(to: request)
        if response == nil { response = await console.respond(to: request) }
        let answer = response!
        return APIAnswer(status: answer.status.code, body: answer.bodyData, headers: answer.headers)
    }

    // MARK: - Driving the demo apps

    /// Calls an API method of a demo app.
    func call(_ app: String, _ method: String, _ arguments: [String: String] = [:]) async throws {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: ["method": method, "arguments": arguments]), as: UTF8.self)
        let answer = await post("/api/apps/\(app)/call", json: json)
        try #require(answer.status == 202, "\(method): \(answer.text)")
    }

    /// The app's view, as the page reads it.
    func app(_ id: String) async throws -> [String: Any] {
        let apps = try #require(await get("/api/apps").json["apps"] as? [[String: Any]])
        return try #require(apps.first { $0["id"] as? String == id })
    }

    /// Waits until `condition` holds for the app's view (the SDK works on its own tasks).
    /// (60 s: a condition, not a speed bound — the whole suite starting at once on two cores once kept a
    /// setRequestor waiting past 20 s.)
    func waitForApp(_ id: String, timeout: Double = 60, _ condition: ([String: Any]) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(TestTime.seconds(timeout))
        while Date() < deadline {
            if condition(try await app(id)) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("app \(id) never reached the expected state: \(try await app(id))")
    }

    /// Starts `app` and waits until its setRequestor completed.
    func start(_ app: String) async throws {
        let started = await post("/api/apps/\(app)/start")
        try #require(started.status == 200, "\(started.text)")
        try await waitForApp(app) { (($0["callbacks"] as? [[String: Any]]) ?? []).contains { $0["name"] as? String == "setRequestorComplete" } }
    }

    /// Starts `app`, signs in through the picker and the MVPD's login page, and waits for status 1.
    func signIn(_ app: String = "news-ios", mvpd: String = "Cablevision", user: String = "alice", password: String = "alice123") async throws {
        try await start(app)
        try await call(app, "getAuthentication")
        try await waitForApp(app) { pending($0)["providerDialog"] is [Any] }
        try await call(app, "setSelectedProvider", ["mvpd": mvpd])
        try await waitForApp(app) { pending($0)["loginURL"] is String }
        let login = await post("/api/apps/\(app)/login", json: #"{"username":"\#(user)","password":"\#(password)"}"#)
        try #require(login.status == 202, "\(login.text)")
        // The delegate's answer and the flow state (built from the event stream) arrive separately: wait for both.
        try await waitForApp(app) { $0["authenticated"] as? Bool == true && ($0["flow"] as? [String: Any])?["current"] as? String == "status" }
    }

    /// Waits until the history holds at least `count` events (the batcher writes every 50 ms).
    func waitForEvents(atLeast count: Int, timeout: Double = 60) async throws {
        let deadline = Date().addingTimeInterval(TestTime.seconds(timeout))
        while Date() < deadline, (try await console.history.eventCount) < count { try await Task.sleep(for: .milliseconds(50)) }
    }

    /// Waits for `count` stored events, then until the history has stopped growing for 300 ms: the events the apps
    /// published so far are stored (the batcher writes every 50 ms, later on a loaded machine).
    func waitUntilRecorded(atLeast count: Int, timeout: Double = 60) async throws {
        try await waitForEvents(atLeast: count, timeout: timeout)
        let deadline = Date().addingTimeInterval(TestTime.seconds(timeout))
        var last = try await console.history.eventCount
        var stableSince = Date()
        while Date() < deadline, Date().timeIntervalSince(stableSince) < 0.3 {
            try await Task.sleep(for: .milliseconds(50))
            let now = try await console.history.eventCount
            if now != last { (last, stableSince) = (now, Date()) }
        }
    }

    /// The health verdicts of `bundleID`'s newest session once they name every one of `expected` (as often as it is
    /// listed; polled: the history is written in batches).
    func verdicts(app bundleID: String, naming expected: some Collection<String>) async throws
        -> [[String: Any]]
    {
        var found: [[String: Any]] = []
        for _ in 0..<100 {
            try await Task.sleep(for: .milliseconds(100))
            let sessions = await get("/api/sessions?q=\(bundleID)").json["sessions"] as? [[String: Any]] ?? []
            guard let id = sessions.first(where: { $0["bundleID"] as? String == bundleID })?["id"] as? String else {
                continue
            }
            let health = await get("/api/sessions/\(id)").json["health"] as? [String: Any] ?? [:]
            found = health["verdicts"] as? [[String: Any]] ?? []
            let ids = found.compactMap { $0["id"] as? String }
            if expected.allSatisfy({ wanted in ids.filter { $0 == wanted }.count >= expected.filter { $0 == wanted }.count }) {
                break
            }
        }
        return found
    }
}

func pending(_ app: [String: Any]) -> [String: Any] { app["pending"] as? [String: Any] ?? [:] }

/// The CSRF header's name, as the page sends it.
enum AccessGuardHeader { static let csrf = "X-PassConsole-CSRF" }

/// An answer of the console API.
struct APIAnswer {
    var status: Int
    var body: Data
    var headers: [(name: String, value: String)]
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
}
