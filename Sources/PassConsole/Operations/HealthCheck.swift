import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Locking
import PassHistory

/// `GET /healthz`: whether the console can do its work now, for a load balancer or a monitor. Each check does the
/// real thing (a read of the history database, a request to the configured backend) and reports its latency; the
/// answer is 200 when every check passes, 503 naming the failing ones and why.
///
/// It is served without the access token (a monitor has none), so it says nothing sensitive: no file paths, no
/// URLs, no SQLite detail; only each check's state, its kind of problem in words, and how long it took.
struct HealthCheck {
    struct Report: Encodable {
        /// `ok`, or `failing` when any check fails.
        var status: String
        /// The failing checks' names (`history`, `backend`), empty when all pass.
        var failing: [String]
        var checks: Checks
    }

    struct Checks: Encodable {
        var history: Check
        var backend: Check
    }

    struct Check: Encodable {
        /// `ok`, `failing`, or `not_configured` (a console without a backend, e.g. showing a support bundle).
        var status: String
        /// How long the check took, in milliseconds.
        var latencyMs: Double
        /// Why it fails, in words without paths or addresses.
        var reason: String?

        var failed: Bool { status == "failing" }
    }

    /// Runs both checks at once.
    static func run(_ console: Console) async -> Report {
        async let history = checkHistory(console)
        async let backend = checkBackend(console.configuration.backendURL, timeout: console.configuration.backendCheckTimeout)
        let checks = Checks(history: await history, backend: await backend)
        let failing = [("history", checks.history), ("backend", checks.backend)].filter { $0.1.failed }.map(\.0)
        return Report(status: failing.isEmpty ? "ok" : "failing", failing: failing, checks: checks)
    }

    /// A real read of the history (its newest event and its sessions' total) within
    /// ``ConsoleConfiguration/historyCheckTimeout``, then what the console knows of its health: a damaged file found by
    /// the maintenance loop's `quick_check`, or a write failure that still stands.
    static func checkHistory(_ console: Console) async -> Check {
        let clock = ContinuousClock()
        let start = clock.now
        var reason: String?
        let history = console.history
        let timeout = console.configuration.historyCheckTimeout
        do {
            let read: Void? = try await within(timeout) {
                _ = try await history.latestCursor()
                _ = try await history.eventCount
            }
            if read == nil {
                reason = "the history did not answer within \(timeout)"
            } else {
                let known = await console.historyHealth()
                if known.state != "ok" { reason = Self.words(known.state) }
            }
        } catch {
            reason = history.problem(error).map { Self.words($0.kind.rawValue) } ?? "the history could not be read"
        }
        return Check(status: reason == nil ? "ok" : "failing", latencyMs: milliseconds(clock.now - start), reason: reason)
    }

    /// `body`'s result, or `nil` when it takes longer than `timeout` (it is cancelled then and left to finish on its
    /// own: a read waiting for a connection may not end at once).
    static func within<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        let waiter = Mutex<CheckedContinuation<T?, any Error>?>(nil)
        let finish: @Sendable (Result<T?, any Error>) -> Void = { result in
            waiter.withLock { continuation in
                continuation?.resume(with: result)
                continuation = nil
            }
        }
        let tasks = Mutex<[Task<Void, Never>]>([])
        defer { for task in tasks.withLock({ $0 }) { task.cancel() } }
        return try await withCheckedThrowingContinuation { continuation in
            waiter.withLock { $0 = continuation }  // before either task can finish
            let work = Task {
                do { finish(.success(try await body())) } catch { finish(.failure(error)) }
            }
            let timer = Task {
                try? await Task.sleep(for: timeout)
                finish(.success(nil))
            }
            tasks.withLock { $0 = [work, timer] }
        }
    }

    /// The history problem `kind` (``HistoryProblem/Kind``) in words.
    static func words(_ kind: String) -> String {
        switch kind {
        case "read_only": "the history cannot be written: it is read-only"
        case "disk_full": "the history cannot be written: the disk is full"
        case "damaged": "the history file is damaged"
        case "busy": "the history is busy (locked by another process)"
        case "unreachable": "the history database is unreachable"
        default: "the history cannot be read or written (\(kind))"
        }
    }

    /// A `GET` of the backend's base URL: any HTTP answer below 500 within `timeout` (2 s by default,
    /// ``ConsoleConfiguration/backendCheckTimeout``) means it is there and serving.
    static func checkBackend(_ baseURL: String?, timeout: Duration) async -> Check {
        guard let baseURL, let url = URL(string: baseURL) else { return Check(status: "not_configured", latencyMs: 0) }
        let clock = ContinuousClock()
        let start = clock.now
        var request = URLRequest(url: url)
        request.timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        var reason: String?
        do {
            let (_, response) = try await session.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            if !(100..<500).contains(status) { reason = "the backend answered \(status)" }
        } catch let error as URLError {
            reason = switch error.code {
            case .timedOut: "the backend did not answer within \(timeout)"
            case .cannotConnectToHost: "the backend refused the connection (not running?)"
            case .cannotFindHost, .dnsLookupFailed: "the backend's host name does not resolve"
            default: "the backend cannot be reached (URLError \(error.code.rawValue))"
            }
        } catch {
            reason = "the backend cannot be reached"
        }
        return Check(status: reason == nil ? "ok" : "failing", latencyMs: milliseconds(clock.now - start), reason: reason)
    }

    static func milliseconds(_ duration: Duration) -> Double {
        (Double(duration.nanoseconds) / 1e6 * 1000).rounded() / 1000
    }

    /// No URLCache (see ``BackendAdmin``), no cookies.
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpShouldSetCookies = false
        return URLSession(configuration: configuration)
    }()
}
