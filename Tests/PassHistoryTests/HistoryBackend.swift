import Foundation
import PassHistory
import PassHistoryPostgres
import PassTestSupport
import Testing

/// The history's two implementations, which the history tests run against alike (`@Test(arguments:
/// HistoryBackend.allCases)`), so neither drifts from the other.
enum HistoryBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// ``HistoryDatabase``: a SQLite file in a temporary folder.
    case sqlite
    /// `PostgresHistory`: a fresh database of the test process's throwaway cluster (``PostgresCluster``).
    case postgres

    var testDescription: String { rawValue }
}

/// Runs `body` with an empty history of `backend`, removed (or closed) afterwards.
func withHistory<T>(_ backend: HistoryBackend, _ body: (any EventHistory) async throws -> T) async throws -> T {
    switch backend {
    case .sqlite:
        return try await withHistory { history in try await body(history) }
    case .postgres:
        let history = try await openPostgresHistory()
        do {
            let result = try await body(history)
            await history.close()
            return result
        } catch {
            await history.close()
            throw error
        }
    }
}

/// A `PostgresHistory` on a new database of the shared throwaway cluster, connected over TCP with the cluster's
/// password as a console would be.
func openPostgresHistory() async throws -> PostgresHistory {
    let cluster = try await PostgresCluster.shared()
    let database = try await cluster.createDatabase()
    return try await PostgresHistory(host: cluster.host, port: cluster.port, username: cluster.user, password: cluster.password,
        database: database)
}
