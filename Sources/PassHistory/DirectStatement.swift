import GRDB
import GRDBSQLite

/// A cached prepared statement whose values are bound straight through the SQLite C API, for the ingest loop's
/// per-row statements. GRDB's `execute(arguments:)` boxes every value and runs its per-statement bookkeeping on each
/// row, which cost more than SQLite's own insert; the values here are plain, so nothing is lost by binding them
/// directly. The caller tells GRDB's observers about the change once per transaction (``HistoryDatabase/append(_:)``).
struct DirectStatement {
    enum Value {
        case integer(Int64)
        case real(Double)
        case text(String?)
    }

    private let statement: Statement
    private let connection: SQLiteConnection

    init(_ db: Database, sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        connection = db.sqliteConnection!
    }

    /// Binds `values` to the parameters in order (a `nil` text binds NULL) and runs the statement.
    func execute(_ values: Value...) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .integer(let number): sqlite3_bind_int64(handle, index, number)
            case .real(let number): sqlite3_bind_double(handle, index, number)
            case .text(let text): bind(text, at: index)
            }
        }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
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

extension DirectStatement {
    /// `INSERT OR IGNORE INTO session_term` of one searchable form of a session's value.
    static func termInsert(_ db: Database) throws -> DirectStatement {
        try DirectStatement(db, sql: "INSERT OR IGNORE INTO session_term (term, field, sessionKey, value, offset) VALUES (?, ?, ?, ?, ?)")
    }

    /// `INSERT INTO event` of one encoded event.
    static func eventInsert(_ db: Database) throws -> DirectStatement {
        try DirectStatement(db, sql: """
            INSERT INTO event (id, sessionKey, sequence, timestamp, kind, requestorID, mvpdID, httpStatus, summary, payload)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
    }

    /// Inserts one event of session `key` under `id` (the caller has checked that it is new).
    func insert(_ row: EncodedEvent, id: Int64, sessionKey key: Int64) throws {
        // A NULL status binds as text nil.
        let status: Value = row.facets.httpStatus.map { .integer(Int64($0)) } ?? .text(nil)
        try execute(.integer(id), .integer(key), .integer(Int64(row.event.sequence)), .real(EventRecord.timestampColumn(row.event.timestamp)),
            .text(row.facets.kind.rawValue), .text(row.facets.requestorID), .text(row.facets.mvpdID), status, .text(row.summary),
            .text(EventView.json(head: row.viewHead, id: id, tail: row.viewTail)))
    }
}
