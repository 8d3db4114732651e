import PassEvents
import Logging
import PassHistory
import PostgresNIO

/// The PostgreSQL history's schema, as numbered migrations recorded in `schema_version`. A shipped migration is never
/// edited: changes are new migrations appended at the end, so a database written by an older build upgrades in place.
/// Consoles starting together migrate one at a time (a transaction-scoped advisory lock).
///
/// The tables mirror the SQLite history's (schema v9), in PostgreSQL's words:
/// - Text a filter compares is `COLLATE "C"`: `lower()` and `ILIKE` then fold ASCII letters only, as SQLite's
///   `NOCASE` and `LIKE` do, whatever the database's locale; case-insensitive IDs are matched through expression
///   indexes on `lower(…)`.
/// - Each event carries its session's device and app (v4), so every filter on one value is an index on `event`.
/// - Every `event` index ends in `id`, so a filter on one value reads its newest events in ID order and stops at a
///   page; HTTP statuses have partial indexes (only exchanges have one), the summary a trigram index (`pg_trgm`, GIN)
///   for the text filter's `ILIKE '%…%'`.
/// - `event` has no foreign key and no unique (session, sequence) key: each costs an index probe per event; the
///   history keeps both true itself (``PostgresHistory/append(_:)``), as the SQLite history does since its v4.
enum PostgresSchema {
    /// One migration: its number, its name and its statements, run in order in one transaction.
    struct Migration {
        var version: Int
        var name: String
        var statements: [String]
    }

    static let migrations: [Migration] = [
        Migration(version: 1, name: "v1-events", statements: v1),
        Migration(version: 2, name: "v2-audit-backups", statements: v2),
        Migration(version: 3, name: "v3-operators", statements: v3),
        Migration(version: 4, name: "v4-event-device-app", statements: v4),
    ]

    /// v1: sessions, their search entries, events and the event ID counter.
    static let v1: [String] = [
        "CREATE EXTENSION IF NOT EXISTS pg_trgm",
        """
        CREATE TABLE session (
            key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id uuid NOT NULL UNIQUE,
            device_id text COLLATE "C" NOT NULL,
            bundle_id text COLLATE "C" NOT NULL,
            team_id text COLLATE "C" NOT NULL,
            platform text COLLATE "C" NOT NULL,
            requestor_id text COLLATE "C",
            first_seen double precision NOT NULL,
            last_seen double precision NOT NULL,
            event_count bigint NOT NULL DEFAULT 0 CHECK (event_count >= 0),
            last_sequence bigint NOT NULL DEFAULT -1,
            mvpd_id text COLLATE "C",
            user_id text COLLATE "C",
            tracking_hash text COLLATE "C",
            outcome text COLLATE "C" NOT NULL DEFAULT 'started',
            waiting_since double precision
        )
        """,
        "CREATE INDEX session_on_last_seen ON session (last_seen)",
        "CREATE INDEX session_on_device ON session (lower(device_id))",
        "CREATE INDEX session_on_bundle ON session (lower(bundle_id))",
        """
        CREATE TABLE session_term (
            term text COLLATE "C" NOT NULL,
            field text COLLATE "C" NOT NULL,
            session_key bigint NOT NULL REFERENCES session (key) ON DELETE CASCADE,
            value text COLLATE "C" NOT NULL,
            "offset" integer NOT NULL,
            PRIMARY KEY (term, field, session_key)
        )
        """,
        "CREATE INDEX session_term_on_session ON session_term (session_key)",
        "CREATE TABLE event_counter (last_id bigint NOT NULL)",
        "INSERT INTO event_counter (last_id) VALUES (0)",
        """
        CREATE TABLE event (
            id bigint PRIMARY KEY,
            session_key bigint NOT NULL,
            sequence bigint NOT NULL,
            timestamp double precision NOT NULL,
            kind text COLLATE "C" NOT NULL CHECK (kind IN (\(EventKind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")))),
            requestor_id text COLLATE "C",
            mvpd_id text COLLATE "C",
            http_status integer,
            summary text COLLATE "C" NOT NULL,
            payload text NOT NULL
        )
        """,
        "CREATE INDEX event_on_kind ON event (kind, id)",
        "CREATE INDEX event_on_requestor ON event (lower(requestor_id), id)",
        "CREATE INDEX event_on_mvpd ON event (lower(mvpd_id), id)",
        "CREATE INDEX event_on_session ON event (session_key, id)",
        "CREATE INDEX event_on_timestamp ON event (timestamp)",
        "CREATE INDEX event_on_status ON event (http_status, id) WHERE http_status IS NOT NULL",
        "CREATE INDEX event_on_status_class ON event ((http_status / 100), id) WHERE http_status IS NOT NULL",
        "CREATE INDEX event_on_error_status ON event (id) WHERE http_status < 200 OR http_status >= 400",
        "CREATE INDEX event_on_summary ON event USING gin (summary gin_trgm_ops)",
    ]

    /// v2: the audit log (what people did in the consoles, never edited) and storage backups for undo (their documents
    /// as `jsonb`: read back whole, never compared byte for byte).
    static let v2: [String] = [
        """
        CREATE TABLE audit (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            at double precision NOT NULL,
            action text NOT NULL,
            detail text NOT NULL,
            remote text NOT NULL DEFAULT '',
            operator text
        )
        """,
        """
        CREATE TABLE backup (
            id text PRIMARY KEY,
            at double precision NOT NULL,
            reason text NOT NULL,
            documents jsonb NOT NULL
        )
        """,
        "CREATE INDEX backup_on_at ON backup (at)",
    ]

    /// v3: named operators, shared by every console on the database (only the SHA-256 of a token is kept).
    static let v3: [String] = [
        """
        CREATE TABLE operator (
            name text COLLATE "C" PRIMARY KEY,
            role text NOT NULL,
            token_hash text NOT NULL UNIQUE,
            created_at double precision NOT NULL,
            revoked_at double precision
        )
        """
    ]

    /// v4: each event carries its session's device and app, indexed with its ID, so a `device:` or `app:` page reads
    /// the newest matches of one index and stops at a page. Through the session (`session_key IN (…)`) PostgreSQL read
    /// every event of the device's sessions and sorted them: `device:device-42` at 10M events (20,000 matches) took
    /// p50 49 ms, p99 93 ms a page of 200. A session's device and app never change after its first event, so the copy
    /// on the event row cannot go stale. Filled from the sessions here (one pass over a history written by an older
    /// build); an event whose session is gone keeps NULL and, as before, matches no device or app.
    static let v4: [String] = [
        "ALTER TABLE event ADD COLUMN device_id text COLLATE \"C\", ADD COLUMN bundle_id text COLLATE \"C\"",
        "UPDATE event SET device_id = s.device_id, bundle_id = s.bundle_id FROM session s WHERE s.key = event.session_key",
        "CREATE INDEX event_on_device ON event (lower(device_id), id)",
        "CREATE INDEX event_on_bundle ON event (lower(bundle_id), id)",
        "ANALYZE event",
    ]

    /// Brings the database to the current schema (or up to migration `lastVersion`).
    static func migrate(_ client: PostgresClient, upTo lastVersion: Int? = nil, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { connection in
            // Two consoles starting on a new database: the second waits, then finds the tables made.
            try await connection.query("SELECT pg_advisory_xact_lock(8180342211)", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS schema_version (
                    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            let applied = Set(try await connection.query("SELECT version FROM schema_version", logger: logger).collectColumn(Int.self))
            for migration in migrations where !applied.contains(migration.version) && migration.version <= lastVersion ?? .max {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO schema_version (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger)
            }
        }
    }
}
