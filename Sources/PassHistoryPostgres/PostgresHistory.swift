import AccessEnabler
import Foundation
import Logging
import PassHistory
import PostgresNIO

/// The event history in PostgreSQL, for a team: several consoles on one database, with the same answers as the
/// embedded SQLite history (``EventHistory``; the history tests run against both).
///
/// The schema is migrated when the history opens (``PostgresSchema``, recorded in `schema_version`). Every write is
/// one transaction that first locks the `event_counter` row, so writers (of every console on the database) take
/// turns, and event IDs (the paging and resume cursors) are handed out, and committed, in order and never reused.
/// Events are stored as SQLite stores them: the event's view (``EventView``) as text, byte for byte what the API sends,
/// with its indexed columns beside it. Filters are answered through PostgreSQL's own indexes (btree, partial and
/// expression indexes, a trigram index for the text): see ``HistoryFilter/postgresCondition(_:)``.
///
/// Connections come from a `PostgresClient` pool the history runs itself; call ``close()`` when done with it.
public final class PostgresHistory: EventHistory {
    /// The connection pool.
    let client: PostgresClient
    /// Runs the pool until ``close()``.
    private let runner: Task<Void, Never>
    let logger: Logger
    /// The database's URL without its password (``PostgresLocation/description``), or "PostgreSQL" when the history
    /// was opened from a client configuration.
    public let location: String

    /// Connects to the database described by `configuration` (the pool opens connections as needed) and migrates it
    /// to the current schema.
    public convenience init(configuration: PostgresClient.Configuration, logger: Logger = PostgresHistory.defaultLogger) async throws {
        try await self.init(configuration: configuration, logger: logger, migratingUpTo: nil, location: "PostgreSQL")
    }

    /// Connects and migrates up to migration `lastVersion` (`nil`: all; tests write a database as an older build did).
    package init(configuration: PostgresClient.Configuration, logger: Logger, migratingUpTo lastVersion: Int?, location: String = "PostgreSQL")
        async throws
    {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.location = location
        // Started at once, so the pool is running before the first lease (else PostgresNIO warns the lease waits).
        runner = Task.immediate { await client.run() }
        do {
            try await PostgresSchema.migrate(client, upTo: lastVersion, logger: logger)
        } catch {
            runner.cancel()
            throw error
        }
    }

    /// Connects over TCP (no TLS) as `username` to `database` on `host:port`, and migrates it.
    ///
    /// One connection is made first, on its own: a server that cannot be reached or refuses the credentials throws
    /// PostgreSQL's (or the network's) error at once, where the pool would retry in the background until its lease
    /// timed out.
    public convenience init(
        host: String, port: Int = 5432, username: String, password: String?, database: String, logger: Logger = PostgresHistory.defaultLogger
    ) async throws {
        try await self.init(host: host, port: port, username: username, password: password, database: database, logger: logger,
            migratingUpTo: nil)
    }

    /// As ``init(host:port:username:password:database:logger:)``, migrating up to migration `lastVersion` only.
    package convenience init(
        host: String, port: Int = 5432, username: String, password: String?, database: String, logger: Logger = PostgresHistory.defaultLogger,
        migratingUpTo lastVersion: Int?
    ) async throws {
        let probe = try await PostgresConnection.connect(configuration: PostgresConnection.Configuration(host: host, port: port,
            username: username, password: password, database: database, tls: .disable), id: 0, logger: logger)
        try await probe.close()
        var configuration = PostgresClient.Configuration(host: host, port: port, username: username, password: password, database: database,
            tls: .disable)
        configuration.options.maximumConnections = 8
        try await self.init(configuration: configuration, logger: logger, migratingUpTo: lastVersion,
            location: PostgresLocation(host: host, port: port, username: username, password: password, database: database).description)
    }

    /// Connects to the history at `location` (``PostgresLocation/init(url:)`` reads it from a `postgres://` URL), and
    /// migrates it.
    public convenience init(location: PostgresLocation, logger: Logger = PostgresHistory.defaultLogger) async throws {
        try await self.init(host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, logger: logger)
    }

    /// The logger when none is given: warnings and errors only (PostgresNIO reports at `info` level a connection that
    /// was being opened when the pool closed).
    public static var defaultLogger: Logger {
        var logger = Logger(label: "PassHistoryPostgres")
        logger.logLevel = .warning
        return logger
    }

    /// Closes the pool's connections; the history cannot be used afterwards.
    public func close() async {
        runner.cancel()
        await runner.value
    }

    deinit { runner.cancel() }

    /// The names of the migrations applied to the database, oldest first.
    public func appliedMigrations() async throws -> [String] {
        try await client.query("SELECT name FROM schema_version ORDER BY version", logger: logger).collectColumn(String.self)
    }

    /// Runs `body` in one transaction that holds the writers' lock (the `event_counter` row), and returns the
    /// counter's value as the transaction found it.
    func write<T: Sendable>(_ body: @Sendable (PostgresConnection, _ lastID: Int64) async throws -> T) async throws -> T {
        try await client.withTransaction(logger: logger) { connection in
            let lastID = try await connection.query("SELECT last_id FROM event_counter FOR UPDATE", logger: logger)
                .collectColumn(Int64.self).first ?? 0
            return try await body(connection, lastID)
        }
    }
}

extension PostgresRowSequence {
    /// The first column of every row.
    func collectColumn<T: PostgresDecodable>(_ type: T.Type) async throws -> [T] {
        var values: [T] = []
        for try await row in self { values.append(try row.decode(T.self)) }
        return values
    }
}
