import AccessEnabler
import Foundation
import PassTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The team deployment of docs/deploy.md: a real nginx doing TLS with the committed
/// `Config/deploy/passconsole-nginx.conf` (a self-signed certificate made with openssl), in front of a real
/// `passconsole serve` with named operators and `--public-url`, driven through https with curl.
@Suite(.serialized, .enabled(if: ProxyTools.found != nil, "needs nginx, openssl and curl (make test installs them)"))
struct ReverseProxyTests {

    /// The name people open the console by: resolved to 127.0.0.1 by curl's `--resolve`, never by DNS.
    static let serverName = "console.test"

    @Test func theConsoleWorksThroughNginxOverHTTPSWithTokensChangesAndAnUnbufferedLiveFeed() async throws {
        let tools = try #require(ProxyTools.found)
        let folder = try NamedOperatorTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let vera = try NamedOperatorTests.token(in: try await NamedOperatorTests.cli(folder, ["add", "vera", "--role", "viewer"]).output)
        let otto = try NamedOperatorTests.token(in: try await NamedOperatorTests.cli(folder, ["add", "otto", "--role", "operator"]).output)

        let port = try WebDriver.freePort()
        let origin = "https://\(Self.serverName):\(port)"
        let (console, urls) = try await ServeProcess.startWithURLs(folder, arguments: ["--no-demo", "--public-url", origin])
        defer { console.terminate() }
        #expect(urls.printed.hasPrefix(origin), "serve prints the URL people open: \(urls.printed)")
        let upstream = try #require(URL(string: urls.console).flatMap { url in url.port.map { "\(url.host ?? ""):\($0)" } })

        let proxy = try await Nginx.start(tools: tools, folder: folder, port: port, upstream: upstream)
        defer { proxy.process.terminate() }
        let curl = Curl(executable: tools.curl, origin: origin, port: port, certificate: proxy.certificate, folder: folder)
        let asOtto = ["Authorization": "Bearer \(otto)"], asVera = ["Authorization": "Bearer \(vera)"]

        // The page loads over https; the API asks for a personal token; /healthz answers the load balancer without one
        let page = try await curl.run("GET", "/")
        #expect(page.status == 200 && page.body.contains("PassConsole"), "\(page.status) \(page.body.prefix(300))")
        #expect(page.httpVersion == "2", "the site file offers HTTP/2 (one connection for the page, its API calls and its live feed)")
        let anonymous = try await curl.run("GET", "/api/overview")
        #expect(anonymous.status == 401 && anonymous.json["error"] as? String == "sign_in_required", "\(anonymous.body)")
        let health = try await curl.run("GET", "/healthz")
        #expect(health.status == 200 && health.json["status"] as? String == "ok", "\(health.body)")
        let overview = try await curl.run("GET", "/api/overview", headers: asOtto)
        #expect(overview.status == 200, "\(overview.body)")
        let csrf = try #require(overview.json["csrfToken"] as? String)

        // A change from the page at the https name passes the console's Host and Origin checks…
        let change = asOtto.merging(["X-PassConsole-CSRF": csrf, "Origin": origin, "Content-Type": "application/json"]) { $1 }
        let tvProvider = Data(#"{"choice":"cancel"}"#.utf8)
        let changed = try await curl.run("PUT", "/api/devices/phone/tv-provider", headers: change, body: tvProvider)
        #expect(changed.status == 200 && changed.json["choice"] as? String == "cancel", "\(changed.status) \(changed.body)")
        #expect(try await curl.run("GET", "/api/devices/phone/tv-provider", headers: asOtto).json["choice"] as? String == "cancel")
        let cleared = try await curl.run("POST", "/api/storage/clear", headers: change, body: Data(#"{"domain":"phone/team:TEAM1234"}"#.utf8))
        #expect(cleared.status == 200, "\(cleared.status) \(cleared.body)")
        // …while another site's page, and a viewer, are still refused behind the proxy
        let foreign = try await curl.run("PUT", "/api/devices/phone/tv-provider",
            headers: change.merging(["Origin": "https://elsewhere.example"]) { $1 }, body: tvProvider)
        #expect(foreign.status == 403 && foreign.json["error"] as? String == "bad_origin", "\(foreign.body)")
        let veraCSRF = try #require(try await curl.run("GET", "/api/overview", headers: asVera).json["csrfToken"] as? String)
        let byViewer = try await curl.run("PUT", "/api/devices/phone/tv-provider",
            headers: change.merging(asVera) { $1 }.merging(["X-PassConsole-CSRF": veraCSRF]) { $1 }, body: tvProvider)
        #expect(byViewer.status == 403 && byViewer.json["error"] as? String == "role_forbidden", "\(byViewer.body)")
        let audit = try await curl.run("GET", "/api/audit", headers: asVera).json["entries"] as? [[String: Any]] ?? []
        #expect(audit.contains { $0["action"] as? String == "tv-provider" && $0["operatorName"] as? String == "otto" })

        // The live feed streams through the proxy: an event ingested now reaches an open stream while it stays open
        let stream = folder.appendingPathComponent("stream.out")
        let feed = try curl.stream("/api/events/stream", headers: asOtto, into: stream)
        defer { feed.terminate() }
        try await Self.wait(for: "retry:", in: stream, what: "the live feed's opening")
        let event = EntitlementEvent(sequence: 0, timestamp: Date(), sessionID: UUID(), deviceID: "d",
            app: AppIdentity(bundleID: "com.example.through-nginx", teamID: "TEAM1"), requestorID: "REF30", mvpdID: nil,
            kind: .apiCall(name: "setRequestor", arguments: [:]))
        let ingested = try await curl.run("POST", "/api/ingest", headers: asOtto.merging(["Content-Type": "application/x-ndjson"]) { $1 },
            body: try EntitlementEvent.Wire.ndjson([event]))
        #expect(ingested.status == 200 && ingested.json["accepted"] as? Int == 1, "\(ingested.body)")
        try await Self.wait(for: "com.example.through-nginx", in: stream, what: "the ingested event on the open live feed")
        #expect(feed.isRunning, "the stream stays open after the event")

        // Bodies up to the console's own 16 MB reach it (nginx's default stops at 1 MB); beyond, nginx refuses
        let ndjson = ["Content-Type": "application/x-ndjson"]
        let threeMB = try await curl.run("POST", "/api/ingest", headers: asOtto.merging(ndjson) { $1 },
            body: Data(repeating: UInt8(ascii: "x"), count: 3 << 20))
        #expect(threeMB.contentType.contains("json") && threeMB.status != 413, "\(threeMB.status) \(threeMB.body.prefix(200))")
        let seventeenMB = try await curl.run("POST", "/api/ingest", headers: asOtto.merging(ndjson) { $1 },
            body: Data(repeating: UInt8(ascii: "x"), count: 17 << 20))
        #expect(seventeenMB.status == 413, "\(seventeenMB.status) \(seventeenMB.body.prefix(200))")

        let errors = (try? String(contentsOf: proxy.errorLog, encoding: .utf8)) ?? ""
        #expect(!errors.contains("[emerg]") && !errors.contains("[crit]"), "\(errors)")
    }

    /// Waits until `file` holds `text`, or fails saying what did not come.
    static func wait(for text: String, in file: URL, what: String) async throws {
        let deadline = ContinuousClock.now + .seconds(TestTime.seconds(20))  // arrival, not a speed bound
        while ContinuousClock.now < deadline {
            if ((try? String(contentsOf: file, encoding: .utf8)) ?? "").contains(text) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("\(what) did not arrive through nginx: \((try? String(contentsOf: file, encoding: .utf8)) ?? "")")
        throw CancellationError()
    }

}

/// The programs ``ReverseProxyTests`` runs.
enum ProxyTools {
    /// nginx, openssl and curl, when all three are installed.
    static let found: (nginx: String, openssl: String, curl: String)? = {
        guard let nginx = executable("nginx"), let openssl = executable("openssl"), let curl = executable("curl") else { return nil }
        return (nginx, openssl, curl)
    }()

    /// `name` on `PATH` or in the sbin folders (not on a non-root user's `PATH`).
    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return (path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/sbin"])
            .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A real nginx on 127.0.0.1 running the committed site file, in a folder of the test's.
struct Nginx {
    var process: ChildProcess
    var certificate: URL
    var errorLog: URL

    /// The committed site file, as docs/deploy.md tells people to use it.
    static let siteFile = BuiltBinary.packageRoot.appendingPathComponent("Config/deploy/passconsole-nginx.conf")

    /// Makes a self-signed certificate for ``ReverseProxyTests/serverName``, fills in the site file's values, and
    /// starts nginx (`daemon off`) with a main configuration that only holds what a packaged nginx.conf would
    /// (pid, logs, temporary folders) and includes the site file; returns once it answers `/healthz` through it.
    static func start(tools: (nginx: String, openssl: String, curl: String), folder: URL, port: UInt16, upstream: String)
        async throws -> Nginx
    {
        let prefix = folder.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
        let certificate = prefix.appendingPathComponent("console.pem"), key = prefix.appendingPathComponent("console.key")
        let openssl = try ChildProcess(tools.openssl, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-days", "2", "-subj", "/CN=\(ReverseProxyTests.serverName)",
            "-addext", "subjectAltName=DNS:\(ReverseProxyTests.serverName)",
            "-keyout", key.path, "-out", certificate.path], stderr: .file(prefix.appendingPathComponent("openssl.err")))
        #expect(await openssl.exited() == 0, "openssl could not make the certificate")

        let site = try String(contentsOf: siteFile, encoding: .utf8)
            .replacingOccurrences(of: "@SERVER_NAME@", with: ReverseProxyTests.serverName)
            .replacingOccurrences(of: "@LISTEN@", with: "127.0.0.1:\(port)")
            .replacingOccurrences(of: "@CERTIFICATE@", with: certificate.path)
            .replacingOccurrences(of: "@CERTIFICATE_KEY@", with: key.path)
            .replacingOccurrences(of: "@CONSOLE@", with: upstream)
        let unfilled = site.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") && $0.contains("@") }
        #expect(unfilled.isEmpty, "the site file has values the test does not fill in: \(unfilled)")
        try site.write(to: prefix.appendingPathComponent("passconsole.conf"), atomically: true, encoding: .utf8)
        let errorLog = prefix.appendingPathComponent("error.log")
        let temporary = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
            .map { "    \($0)_temp_path \(prefix.appendingPathComponent($0).path);" }.joined(separator: "\n")
        // As root, workers would switch to `nobody`, which cannot read the test's folder.
        let user = getuid() == 0 ? "user root root;\n" : ""
        let main = """
            \(user)worker_processes 1;
            pid \(prefix.appendingPathComponent("nginx.pid").path);
            error_log \(errorLog.path) info;
            events { worker_connections 64; }
            http {
                access_log \(prefix.appendingPathComponent("access.log").path);
            \(temporary)
                include \(prefix.appendingPathComponent("passconsole.conf").path);
            }

            """
        try main.write(to: prefix.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let process = try ChildProcess(tools.nginx, ["-p", prefix.path, "-e", errorLog.path, "-c", prefix.appendingPathComponent("nginx.conf").path,
            "-g", "daemon off;"], stderr: .file(prefix.appendingPathComponent("nginx.err")))
        let curl = Curl(executable: tools.curl, origin: "https://\(ReverseProxyTests.serverName):\(port)", port: port,
            certificate: certificate, folder: folder)
        let deadline = ContinuousClock.now + .seconds(TestTime.seconds(20))  // start-up, not a speed bound
        while ContinuousClock.now < deadline, process.isRunning {
            if (try? await curl.run("GET", "/healthz", quiet: true))?.status == 200 {
                return Nginx(process: process, certificate: certificate, errorLog: errorLog)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.terminate()
        let said = ((try? String(contentsOf: prefix.appendingPathComponent("nginx.err"), encoding: .utf8)) ?? "")
            + ((try? String(contentsOf: errorLog, encoding: .utf8)) ?? "")
        Issue.record("nginx did not answer /healthz through the site file: \(said)")
        throw CancellationError()
    }
}

/// curl against the proxy at `origin`, trusting only the test's certificate, its name resolved to 127.0.0.1.
struct Curl {
    var executable: String
    var origin: String
    var port: UInt16
    var certificate: URL
    var folder: URL

    struct Answer {
        var status: Int
        var contentType: String
        /// `1.1` or `2`, as curl negotiated it with nginx.
        var httpVersion: String
        var body: String
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
        }
    }

    private var common: [String] {
        ["-sS", "--cacert", certificate.path, "--resolve", "\(ReverseProxyTests.serverName):\(port):127.0.0.1"]
    }

    private static func headerArguments(_ headers: [String: String]) -> [String] {
        headers.sorted { $0.key < $1.key }.flatMap { ["-H", "\($0.key): \($0.value)"] }
    }

    /// One request; `quiet` records no issue when curl itself fails (start-up polling).
    func run(_ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil, quiet: Bool = false)
        async throws -> Answer
    {
        let id = UUID().uuidString.prefix(8)
        let output = folder.appendingPathComponent("curl-\(id).body"), meta = folder.appendingPathComponent("curl-\(id).meta")
        let errors = folder.appendingPathComponent("curl-\(id).err")
        var arguments = common + ["-X", method, "-o", output.path, "-w", "%{http_code} %{http_version} %{content_type}", "--max-time", "60"]
            + Self.headerArguments(headers)
        if let body {
            let file = folder.appendingPathComponent("curl-\(id).request")
            try body.write(to: file)
            arguments += ["--data-binary", "@\(file.path)"]
        }
        let process = try ChildProcess(executable, arguments + [origin + path], stdout: .file(meta), stderr: .file(errors))
        let code = await process.exited()
        defer { for file in [output, meta, errors] { try? FileManager.default.removeItem(at: file) } }
        guard code == 0 else {
            if !quiet { Issue.record("curl \(method) \(path) failed (\(code)): \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")") }
            throw CancellationError()
        }
        let words = ((try? String(contentsOf: meta, encoding: .utf8)) ?? "").split(separator: " ", maxSplits: 2).map(String.init)
        return Answer(status: words.first.flatMap { Int($0) } ?? 0, contentType: words.count > 2 ? words[2] : "",
            httpVersion: words.count > 1 ? words[1] : "", body: (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    /// A streaming GET (`-N`: curl's own buffer off) writing what arrives to `file` as it arrives.
    func stream(_ path: String, headers: [String: String], into file: URL) throws -> ChildProcess {
        try ChildProcess(executable, common + ["-N", "-H", "Accept: text/event-stream"] + Self.headerArguments(headers) + [origin + path],
            stdout: .file(file), stderr: .file(file.appendingPathExtension("err")))
    }
}
