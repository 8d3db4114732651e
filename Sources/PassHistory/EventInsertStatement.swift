import AccessEnabler
import GRDB
import GRDBSQLite

/// The ingest loop's `INSERT OR IGNORE INTO event`: binds each row's values straight through the SQLite C API.
/// GRDB's `execute(arguments:)` boxes every value and runs its per-statement bookkeeping on each row, which cost
/// more than SQLite's own insert; the rows here are plain values, so nothing is lost by binding them directly.
/// The caller tells GRDB's observers about the change once per transaction (``HistoryDatabase/append(_:)``).
struct EventInsertStatement {
    static let sql = """
        INSERT OR IGNORE INTO event (sessionKey, sequence, timestamp, kind, requestorID, mvpdID, httpStatus, summary, payload)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    private let statement: Statement
    private let connection: SQLiteConnection

    init(_ db: Database) throws {
        statement = try db.cachedStatement(sql: Self.sql)
        connection = db.sqliteConnection!
    }

    /// Inserts one event of session `key`; returns whether it was new (false: that sequence number is stored).
    func insert(_ event: EntitlementEvent, sessionKey key: Int64, payload: String, summary: String) throws -> Bool {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, key)
        sqlite3_bind_int64(handle, 2, Int64(event.sequence))
        sqlite3_bind_double(handle, 3, event.timestamp.timeIntervalSince1970)
        bind(EventKind(event.kind).rawValue, at: 4)
        bind(event.requestorID, at: 5)
        bind(event.mvpdID, at: 6)
        if case .httpExchange(let exchange) = event.kind {
            sqlite3_bind_int64(handle, 7, Int64(exchange.status ?? 0))
        } else {
            sqlite3_bind_null(handle, 7)
        }
        bind(summary, at: 8)
        bind(payload, at: 9)
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: Self.sql)
        }
        return sqlite3_changes(connection) > 0
    }

    private func bind(_ text: String?, at index: Int32) {
        guard var text else {
            sqlite3_bind_null(statement.sqliteStatement, index)
            return
        }
        // SQLITE_TRANSIENT: SQLite copies the bytes before this returns.
        text.withUTF8 { bytes in
            _ = sqlite3_bind_text(statement.sqliteStatement, index, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                Int32(bytes.count), Self.transient)
        }
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
