import Foundation
import PassHistory
import PassHistoryPostgres
import PassTestSupport

/// The history's two implementations, which the history and console tests run against alike (`@Test(arguments:
/// HistoryBackend.allCases)`), so neither drifts from the other.
public enum HistoryBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    /// ``HistoryDatabase``: a SQLite file in a temporary folder.
    case sqlite
    /// `PostgresHistory`: a fresh database of the test process's throwaway cluster (``PostgresCluster``).
    case postgres

    public var description: String { rawValue }

    /// An empty history of this kind: a SQLite file at `sqlitePath`, or a new database of the throwaway cluster
    /// (`sqlitePath` unused). The caller closes it.
    public func open(sqlitePath: String) async throws -> any EventHistory {
        switch self {
        case .sqlite: return try HistoryDatabase(path: sqlitePath)
        case .postgres: return try await openPostgresHistory()
        }
    }
}

/// A `PostgresHistory` on a new database of the shared throwaway cluster, connected over TCP with the cluster's
/// password as a console would be.
public func openPostgresHistory() async throws -> PostgresHistory {
    let cluster = try await PostgresCluster.shared()
    return try await cluster.openHistory(database: try await cluster.createDatabase())
}

extension HistoryBackend {
    /// Closes `history` when it holds connections of its own to close (PostgreSQL's pool); a SQLite file closes when
    /// released.
    public static func close(_ history: any EventHistory) async {
        if let postgres = history as? PostgresHistory { await postgres.close() }
    }
}

extension PostgresCluster {
    /// A `PostgresHistory` on `database` of this cluster, connected over TCP with the cluster's password as a console
    /// would be; `leaseTimeout` bounds each wait for a connection.
    public func openHistory(database: String, leaseTimeout: Duration = PostgresHistory.defaultLeaseTimeout) async throws
        -> PostgresHistory
    {
        try await PostgresHistory(host: host, port: port, username: user, password: password, database: database,
            leaseTimeout: leaseTimeout)
    }
}
