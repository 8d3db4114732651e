import Foundation
import Logging
import MicroHTTP
import PassHistory
import Locking

/// What the console knows of its history's health, for `GET /api/overview` (the page's banner), the log and the API's
/// errors: the latest `quick_check` finding (the maintenance loop runs it), and the latest failed write (a request's
/// or the demo apps' batch), cleared by the next write that works.
final class HistoryHealth: Sendable {
    /// The state as the overview shows it.
    struct Report: Encodable, Equatable {
        /// `ok`, or the problem's kind: `read_only`, `disk_full`, `damaged`, `io_error`, `busy`, `unreachable`.
        var state: String
        var message: String?
        var detail: String?
        var file: String?
        /// Since when the problem is known.
        var since: Date?
        /// When `quick_check` last ran (`nil`: not yet since start).
        var checkedAt: Date?
    }

    private struct Known {
        var problem: HistoryProblem
        var since: Date
    }

    private struct State {
        var check: Known?
        var write: Known?
        var checkedAt: Date?
    }

    /// The SQLite history whose file is checked; `nil` on PostgreSQL (the server checks its own files; `/healthz`
    /// reads the history to see it reachable).
    private let sqlite: HistoryDatabase?
    /// The history, which says which of its errors are storage failures (``EventHistory/problem(_:)``).
    private let history: any EventHistory
    /// How the history is named in the log: the file, or the PostgreSQL location without its password.
    private let name: String
    private let logger: Logger
    private let state = Mutex(State())

    init(history: any EventHistory, logger: Logger) {
        sqlite = history as? HistoryDatabase
        self.history = history
        name = history.location
        self.logger = logger
    }

    /// Runs `quick_check` now (SQLite; nothing on PostgreSQL) and keeps its finding; logs a change either way.
    @discardableResult
    func check(now: Date = Date()) async -> HistoryProblem? {
        let problem = await sqlite?.quickCheck()
        let before = state.withLock { state in
            defer {
                state.check = problem.map { Known(problem: $0, since: state.check?.since ?? now) }
                state.checkedAt = now
            }
            return state.check
        }
        if let problem, before == nil {
            logger.error("history check failed: \(problem)")
        } else if problem == nil, before != nil {
            logger.notice("history check passes again: \(name)")
        }
        return problem
    }

    /// The problem `error` reports (`nil`: not a storage failure; the history decides, ``EventHistory/problem(_:)``),
    /// remembered and logged when new, as the API's answer: 507 for a full disk, 503 for the rest (a PostgreSQL server
    /// that cannot be reached among them), `Retry-After` when waiting may help.
    func failed(_ error: any Error, during action: String, now: Date = Date()) -> HTTPError? {
        guard let problem = history.problem(error) else { return nil }
        noteWriteFailure(problem, during: action, now: now)
        return Self.httpError(problem)
    }

    /// Remembers a failed write; logs it when its kind is new.
    func noteWriteFailure(_ problem: HistoryProblem, during action: String, now: Date = Date()) {
        let isNew = state.withLock { state in
            defer { state.write = Known(problem: problem, since: state.write?.since ?? now) }
            return state.write?.problem.kind != problem.kind
        }
        if isNew { logger.error("history write failed (\(action)): \(problem)") }
    }

    /// A write worked: a write failure no longer stands.
    func writeSucceeded() {
        let had = state.withLock { state in
            defer { state.write = nil }
            return state.write
        }
        if had != nil { logger.notice("history writable again: \(name)") }
    }

    /// A read worked: a database that was unreachable answers again, so that failure no longer stands (one of another
    /// kind, a read-only file, waits for a write that works).
    func readSucceeded() {
        let had = state.withLock { state in
            guard state.write?.problem.kind == .unreachable else { return false }
            state.write = nil
            return true
        }
        if had { logger.notice("history reachable again: \(name)") }
    }

    /// The overview's state: a damaged file found by the check first, else the latest failed write (a request's, or
    /// `batcher`'s while it retries).
    func report(batcher: HistoryProblem?) -> Report {
        let (check, write, checkedAt) = state.withLock { ($0.check, $0.write, $0.checkedAt) }
        guard let known = check ?? write ?? batcher.map({ Known(problem: $0, since: Date()) }) else {
            return Report(state: "ok", checkedAt: checkedAt)
        }
        return Report(state: known.problem.kind.rawValue, message: known.problem.message, detail: known.problem.detail,
            file: known.problem.file, since: known.since, checkedAt: checkedAt)
    }

    /// The API's answer for `problem`.
    static func httpError(_ problem: HistoryProblem) -> HTTPError {
        let status: HTTPStatus = problem.kind == .diskFull ? .insufficientStorage : .serviceUnavailable
        return HTTPError(status, code: "history_" + problem.kind.rawValue, message: problem.message, detail: problem.detail,
            headers: problem.kind == .damaged ? [:] : ["Retry-After": "30"])
    }
}
