import Foundation


/// A real headless Chromium driven through chromedriver's W3C WebDriver protocol (plain JSON over HTTP on
/// loopback), for tests of the console page. One instance is one browser session.
///
/// ```swift
/// let browser = try await WebDriver.start()
/// defer { Task { await browser.quit() } }
/// try await browser.open("http://127.0.0.1:8080/")
/// try await browser.click("a[data-tab=tokens]")
/// ```
public final class WebDriver: @unchecked Sendable {
    /// Why the browser could not do something.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, with the WebDriver's message.
        public var description: String
    }

    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    private let driver: ChildProcess
    private let port: UInt16
    private let sessionID: String

    private init(driver: ChildProcess, port: UInt16, sessionID: String) {
        self.driver = driver
        self.port = port
        self.sessionID = sessionID
    }

    /// True when chromium and chromedriver are installed (`make test` installs them).
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    }

    /// Starts chromedriver on a free loopback port and opens a headless Chromium session.
    public static func start(windowSize: (Int, Int) = (1400, 1000)) async throws -> WebDriver {
        let port = try freePort()
        let process = try ChildProcess(
            "/usr/bin/chromedriver", ["--port=\(port)", "--allowed-ips=127.0.0.1", "--log-level=SEVERE"])
        // chromedriver takes a moment to listen
        var ready = false
        var lastProblem = "no answer"
        for _ in 0..<100 {
            do {
                if try await LoopbackHTTP.request(port: port, method: "GET", path: "/status", body: nil).status == 200 {
                    ready = true
                    break
                }
            } catch {
                lastProblem = "\(error)"
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        guard ready else {
            process.terminate()
            throw Failure(description: "chromedriver did not answer on port \(port): \(lastProblem)")
        }
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": "/usr/bin/chromium",
                        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                 "--window-size=\(windowSize.0),\(windowSize.1)", "--lang=en-US"],
                    ],
                ]
            ]
        ]
        let answer = try await Self.request(port, "POST", "/session", capabilities)
        guard let value = answer["value"] as? [String: Any], let id = value["sessionId"] as? String else {
            process.terminate()
            throw Failure(description: "chromedriver did not open a session: \(answer)")
        }
        return WebDriver(driver: process, port: port, sessionID: id)
    }

    /// Closes the browser and stops chromedriver.
    public func quit() async {
        _ = try? await command("DELETE", "")
        driver.terminate()
        for _ in 0..<20 where driver.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
        driver.terminate(SIGKILL)
    }

    // MARK: - Commands

    /// Loads `url` and waits for the page's load event.
    public func open(_ url: String) async throws {
        _ = try await command("POST", "/url", ["url": url])
    }

    /// Opens a new tab, makes it the current one, and returns its handle.
    @discardableResult
    public func newTab() async throws -> String {
        guard let value = try await command("POST", "/window/new", ["type": "tab"]) as? [String: Any],
            let handle = value["handle"] as? String
        else { throw Failure(description: "no new tab") }
        try await switchTo(handle)
        return handle
    }

    /// Makes the tab or window `handle` the current one (scripts and clicks go to it).
    public func switchTo(_ handle: String) async throws {
        _ = try await command("POST", "/window", ["handle": handle])
    }

    /// Sends a Chrome DevTools Protocol command to the current tab (chromedriver's `goog/cdp/execute`); returns its result.
    @discardableResult
    public func devTools(_ method: String, _ parameters: [String: Any] = [:]) async throws -> [String: Any] {
        (try await command("POST", "/goog/cdp/execute", ["cmd": method, "params": parameters]) as? [String: Any]) ?? [:]
    }

    /// The tab's main-thread figures from the DevTools `Performance` domain (`TaskDuration`, `ScriptDuration` and
    /// `LayoutDuration` in seconds, `LayoutCount`, `RecalcStyleCount`, …), enabled on first use.
    public func performanceMetrics() async throws -> [String: Double] {
        try await devTools("Performance.enable")
        let metrics = try await devTools("Performance.getMetrics")["metrics"] as? [[String: Any]] ?? []
        var figures: [String: Double] = [:]
        for metric in metrics {
            if let name = metric["name"] as? String, let value = metric["value"] as? Double { figures[name] = value }
        }
        return figures
    }

    /// Closes the current tab (switch to another one afterwards).
    public func closeTab() async throws {
        _ = try await command("DELETE", "/window")
    }

    /// The current tab's handle.
    public func currentTab() async throws -> String {
        guard let handle = try await command("GET", "/window") as? String else { throw Failure(description: "no current tab") }
        return handle
    }

    /// Sets the browser window's outer size (a narrow window, as on a laptop beside other windows).
    public func setWindowSize(width: Int, height: Int) async throws {
        _ = try await command("POST", "/window/rect", ["width": width, "height": height])
    }

    /// Runs `script` in the page (its `return` value comes back as JSON-compatible values).
    @discardableResult
    public func run(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        let value = try await command("POST", "/execute/sync", ["script": script, "args": arguments])
        return value is NSNull ? nil : value
    }

    /// Runs `script` in the page as WebDriver's asynchronous script: it finishes by calling its last argument
    /// (`arguments[arguments.length - 1](value)`), whose value comes back; chromedriver gives up after `timeout`.
    @discardableResult
    public func runAsync(_ script: String, _ arguments: [Any] = [], timeout: Double = 30) async throws -> Any? {
        _ = try await command("POST", "/timeouts", ["script": Int(timeout * 1000)])
        let value = try await command("POST", "/execute/async", ["script": script, "args": arguments])
        return value is NSNull ? nil : value
    }

    /// Presses `key` (a character, or a WebDriver key code such as `"\u{E004}"` for Tab) in the focused element,
    /// as the keyboard would: the browser moves focus, activates buttons and closes dialogs itself.
    public func press(_ key: String, shift: Bool = false) async throws {
        let shiftKey = "\u{E008}"
        var actions: [[String: Any]] = []
        if shift { actions.append(["type": "keyDown", "value": shiftKey]) }
        actions += [["type": "keyDown", "value": key], ["type": "keyUp", "value": key]]
        if shift { actions.append(["type": "keyUp", "value": shiftKey]) }
        _ = try await command("POST", "/actions", ["actions": [["type": "key", "id": "keyboard", "actions": actions]]])
    }

    /// Clicks the first element matching `selector` (scrolling it into view), after waiting for it.
    public func click(_ selector: String, timeout: Double = 15) async throws {
        try await onFreshElement(selector, timeout: timeout) { element in
            _ = try await command("POST", "/element/\(element)/click", [:])
        }
    }

    /// Types `text` into the first element matching `selector`.
    public func type(_ selector: String, _ text: String) async throws {
        try await onFreshElement(selector) { element in
            _ = try await command("POST", "/element/\(element)/clear", [:])
            _ = try await command("POST", "/element/\(element)/value", ["text": text])
        }
    }

    /// Runs `action` on the element `selector` finds, finding it again when the page re-rendered it in between
    /// (WebDriver's "stale element reference": a live page redraws its lists and boxes as events arrive).
    private func onFreshElement(_ selector: String, timeout: Double = 20, _ action: (String) async throws -> Void) async throws {
        var attempt = 0
        while true {
            attempt += 1
            let element = try await waitForElement(selector, timeout: timeout)
            do {
                return try await action(element)
            } catch let failure as Failure where attempt < 5 && failure.description.contains("stale element") {
                continue
            }
        }
    }

    /// Sets a file input's file (the page reads it with the File API).
    public func chooseFile(_ selector: String, path: String) async throws {
        let element = try await waitForElement(selector)
        _ = try await command("POST", "/element/\(element)/value", ["text": path])
    }

    /// The text of the first element matching `selector`, or `nil` when there is none.
    public func text(_ selector: String) async throws -> String? {
        try await run("const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", [selector]) as? String
    }

    /// How many elements match `selector`.
    public func count(_ selector: String) async throws -> Int {
        (try await run("return document.querySelectorAll(arguments[0]).length;", [selector]) as? Int) ?? 0
    }

    /// Waits until `condition` (a script returning a boolean) holds; throws with `what` after `timeout`.
    public func waitUntil(_ what: String, timeout: Double = 20, _ condition: String, _ arguments: [Any] = []) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if (try? await run(condition, arguments)) as? Bool == true { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure(description: "timed out waiting for \(what)")
    }

    /// Waits until an element matches `selector`.
    public func waitFor(_ selector: String, timeout: Double = 20) async throws {
        try await waitUntil("'\(selector)'", timeout: timeout, "return document.querySelector(arguments[0]) !== null;", [selector])
    }

    /// A PNG of the window.
    public func screenshot() async throws -> Data {
        guard let base64 = try await command("GET", "/screenshot") as? String, let data = Data(base64Encoded: base64) else {
            throw Failure(description: "no screenshot")
        }
        return data
    }

    /// Saves a PNG of the window to `artifacts/ui/<name>.png` under `root` (kept as a test artefact).
    public func saveScreenshot(_ name: String, root: URL) async {
        let folder = root.appendingPathComponent("artifacts/ui", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if let png = try? await screenshot() { try? png.write(to: folder.appendingPathComponent("\(name).png")) }
    }

    // MARK: - Protocol

    private func waitForElement(_ selector: String, timeout: Double = 20) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let value = try? await command("POST", "/element", ["using": "css selector", "value": selector]) as? [String: Any],
                let id = value[Self.elementKey] as? String
            {
                return id
            }
            guard Date() < deadline else { throw Failure(description: "no element matches '\(selector)'") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any {
        let answer = try await Self.request(port, method, "/session/\(sessionID)" + path, body)
        if let value = answer["value"] as? [String: Any], let error = value["error"] as? String {
            throw Failure(description: "\(error): \(value["message"] as? String ?? "")")
        }
        return answer["value"] ?? NSNull()
    }

    private static func request(_ port: UInt16, _ method: String, _ path: String, _ body: [String: Any]?) async throws
        -> [String: Any]
    {
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let answer = try await LoopbackHTTP.request(port: port, method: method, path: path, body: data)
        return (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
    }

    /// A port nothing listens on now (bound to 0 and released).
    public static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(fd, pointer, length) == 0 else { return -1 }
                return getsockname(fd, pointer, &length)
            }
        }
        guard bound == 0 else { throw Failure(description: "no free port") }
        return UInt16(bigEndian: address.sin_port)
    }
}
