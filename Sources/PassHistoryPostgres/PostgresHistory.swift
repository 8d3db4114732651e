import PassEvents
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
    /// The connection pool PostgresNIO runs.
    let pool: PostgresClient
    /// The pool as the history uses it: every lease bounded by ``leaseTimeout``.
    let client: BoundedPool
    /// The longest wait for a pooled connection: past it a read or write throws a ``HistoryProblem`` of kind
    /// `unreachable` (the console answers 503; the batcher keeps the events and retries).
    public var leaseTimeout: Duration { client.leaseTimeout }
    /// The default ``leaseTimeout``.
    public static let defaultLeaseTimeout: Duration = .seconds(5)
    /// Runs the pool until ``close()``.
    private let runner: Task<Void, Never>
    let logger: Logger
    /// The database's URL without its password (``PostgresLocation/description``), or "PostgreSQL" when the history
    /// was opened from a client configuration.
    public let location: String
    /// Whether events are stored with their session's device and app (schema v4); false only for a history opened at
    /// an older schema by a test, which writes as the build of that schema did.
    let eventsCarryDeviceApp: Bool

    /// Connects to the database described by `configuration` (the pool opens connections as needed) and migrates it
    /// to the current schema.
    public convenience init(configuration: PostgresClient.Configuration, logger: Logger = PostgresHistory.defaultLogger) async throws {
        try await self.init(configuration: configuration, logger: logger, migratingUpTo: nil, location: "PostgreSQL")
    }

    /// Connects and migrates up to migration `lastVersion` (`nil`: all; tests write a database as an older build did).
    package init(configuration: PostgresClient.Configuration, logger: Logger, migratingUpTo lastVersion: Int?, location: String = "PostgreSQL",
        leaseTimeout: Duration = PostgresHistory.defaultLeaseTimeout) async throws
    {
        let pool = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.pool = pool
        client = BoundedPool(pool: pool, leaseTimeout: leaseTimeout, location: location)
        self.logger = logger
        self.location = location
        eventsCarryDeviceApp = (lastVersion ?? .max) >= 4
        // Started at once, so the pool is running before the first lease (else PostgresNIO warns the lease waits).
        runner = Task.immediate { await pool.run() }
        do {
            try await PostgresSchema.migrate(pool, upTo: lastVersion, logger: logger)
        } catch {
            runner.cancel()
            throw error
        }
    }

    /// Connects over TCP (no TLS) as `username` to `database` on `host:port`, and migrates it (as
    /// ``init(location:logger:leaseTimeout:)`` with `sslmode=disable`).
    public convenience init(
        host: String, port: Int = 5432, username: String, password: String?, database: String, logger: Logger = PostgresHistory.defaultLogger,
        leaseTimeout: Duration = PostgresHistory.defaultLeaseTimeout
    ) async throws {
        try await self.init(host: host, port: port, username: username, password: password, database: database, logger: logger,
            migratingUpTo: nil, leaseTimeout: leaseTimeout)
    }

    /// As ``init(host:port:username:password:database:logger:leaseTimeout:)``, migrating up to migration `lastVersion` only.
    package convenience init(
        host: String, port: Int = 5432, username: String, password: String?, database: String, logger: Logger = PostgresHistory.defaultLogger,
        migratingUpTo lastVersion: Int?, leaseTimeout: Duration = PostgresHistory.defaultLeaseTimeout
    ) async throws {
        try await self.init(location: PostgresLocation(host: host, port: port, username: username, password: password, database: database,
            sslMode: .disable), logger: logger, migratingUpTo: lastVersion, leaseTimeout: leaseTimeout)
    }

    /// Connects to the history at `location` (``PostgresLocation/init(url:)`` reads it from a `postgres://` URL), over
    /// TLS as its `sslmode` asks (``PostgresLocation/tlsConfiguration()``), and migrates it.
    ///
    /// One connection is made first, on its own: a server that cannot be reached, refuses the credentials or fails the
    /// TLS check throws PostgreSQL's (or the network's, or TLS's) error at once, where the pool would retry in the
    /// background until its lease timed out. Later, a read or write that gets no connection within `leaseTimeout` (the
    /// server gone) throws a ``HistoryProblem`` of kind `unreachable`.
    public convenience init(location: PostgresLocation, logger: Logger = PostgresHistory.defaultLogger,
        leaseTimeout: Duration = PostgresHistory.defaultLeaseTimeout) async throws
    {
        try await self.init(location: location, logger: logger, migratingUpTo: nil, leaseTimeout: leaseTimeout)
    }

    /// As ``init(location:logger:leaseTimeout:)``, migrating up to migration `lastVersion` only.
    package convenience init(location: PostgresLocation, logger: Logger, migratingUpTo lastVersion: Int?, leaseTimeout: Duration)
        async throws
    {
        let probe = try await PostgresConnection.connect(configuration: PostgresConnection.Configuration(host: location.host,
            port: location.port, username: location.username, password: location.password, database: location.database,
            tls: try location.connectionTLS()), id: 0, logger: logger)
        try await probe.close()
        var configuration = PostgresClient.Configuration(host: location.host, port: location.port, username: location.username,
            password: location.password, database: location.database, tls: try location.poolTLS())
        configuration.options.maximumConnections = 8
        // A server that drops packets (rather than refusing) is given up on as soon as a lease would be.
        configuration.options.connectTimeout = min(configuration.options.connectTimeout, leaseTimeout)
        try await self.init(configuration: configuration, logger: logger, migratingUpTo: lastVersion, location: location.description,
            leaseTimeout: leaseTimeout)
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
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection, _ lastID: Int64) async throws -> T) async throws -> T {
        try await client.withTransaction(logger: logger) { [logger] connection in
            let lastID = try await connection.query("SELECT last_id FROM event_counter FOR UPDATE", logger: logger)
                .collectColumn(Int64.self).first ?? 0
            return try await body(connection, lastID)
        }
    }
}

extension Array where Element == PostgresRow {
    /// The first column of every row.
    func collectColumn<T: PostgresDecodable>(_ type: T.Type) throws -> [T] {
        try map { try $0.decode(T.self) }
    }

    /// Every row's columns.
    func decode<each Column: PostgresDecodable>(_ types: (repeat each Column).Type) throws -> [(repeat each Column)] {
        try map { try $0.decode(types) }
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
