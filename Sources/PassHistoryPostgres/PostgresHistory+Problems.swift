import Foundation
import NIOCore
import PassHistory
import PostgresNIO
import _ConnectionPoolModule

extension PostgresHistory {
    /// The storage failure `error` reports (``EventHistory/problem(_:)``), or `nil` for a bug or a bad value.
    ///
    /// - unreachable: no connection within ``leaseTimeout``, a connection refused, reset or closed by the server
    ///   (`connectionError`, `serverClosedConnection`, `uncleanShutdown`), the pool's circuit breaker (every connection
    ///   attempt failing for a minute), and the server's own class 08 (connection exception), 57P01–57P03 (shut down
    ///   by an administrator, crashed, starting up or shutting down);
    /// - busy: 40001 serialization failure, 40P01 deadlock, 55P03 lock not available, 53300 too many connections;
    /// - disk full: 53100; read-only: 25006 (a read-only transaction: a standby); damaged: XX001, XX002 (data or index
    ///   corrupted); I/O error: 58030.
    public func problem(_ error: any Error) -> HistoryProblem? {
        Self.problem(error, location: location)
    }

    /// As ``problem(_:)`` for the history at `location`.
    static func problem(_ error: any Error, location: String) -> HistoryProblem? {
        if let problem = error as? HistoryProblem { return problem }
        if let error = error as? ConnectionPoolError, error == .connectionCreationCircuitBreakerTripped {
            return HistoryProblem(kind: .unreachable, file: location, detail: "every connection attempt failed for a while (\(error))")
        }
        guard let error = error as? PSQLError else { return nil }
        switch error.code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown:
            let cause = error.underlying.map { "\($0)" } ?? "\(error.code)"
            return HistoryProblem(kind: .unreachable, file: location, detail: "\(error.code): \(cause)")
        case .server:
            guard let state = error.serverInfo?[.sqlState] else { return nil }
            let detail = "SQLSTATE \(state): \(error.serverInfo?[.message] ?? "no message")"
            let kind: HistoryProblem.Kind
            switch state {
            case _ where state.hasPrefix("08"), "57P01", "57P02", "57P03": kind = .unreachable
            case "40001", "40P01", "55P03", "53300": kind = .busy
            case "53100": kind = .diskFull
            case "25006": kind = .readOnly
            case "XX001", "XX002": kind = .damaged
            case "58030": kind = .ioError
            default: return nil
            }
            return HistoryProblem(kind: kind, file: location, detail: detail)
        default:
            return nil
        }
    }
}
