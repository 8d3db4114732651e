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
    /// An event insert that also binds the session's device and app (schema v9).
    private var deviceApp = false

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
        try step()
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

    /// `INSERT INTO event` of one encoded event, with its session's device and app (unless `deviceApp` is false: a file
    /// a test opened at a schema before v9).
    static func eventInsert(_ db: Database, deviceApp: Bool = true) throws -> DirectStatement {
        var statement = try DirectStatement(db, sql: """
            INSERT INTO event (id, sessionKey, sequence, timestamp, kind, requestorID, mvpdID, httpStatus, summary, payload\(deviceApp ? ", deviceID, bundleID" : ""))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?\(deviceApp ? ", ?, ?" : ""))
            """)
        statement.deviceApp = deviceApp
        return statement
    }

    /// Inserts one event of `session` under `id` (the caller has checked that it is new), with the session's device and
    /// app.
    ///
    /// The row's texts are laid end to end in `scratch` (kept from row to row, so nothing is allocated per row), the
    /// view written there with its ID, and bound in place (`SQLITE_STATIC`): SQLite reads them while stepping instead
    /// of copying each text first. The bindings are cleared before the bytes can change.
    func insert(_ row: EncodedEvent, id: Int64, session: HistoryDatabase.SessionWrite, scratch: inout [UInt8]) throws {
        scratch.removeAll(keepingCapacity: true)
        func place(_ text: String?) -> Range<Int>? {
            guard let text else { return nil }
            let start = scratch.count
            scratch.append(contentsOf: text.utf8)
            return start..<scratch.count
        }
        let kind = place(row.facts.kind.rawValue), requestor = place(row.facts.requestorID), mvpd = place(row.facts.mvpdID)
        let summary = place(row.facts.summary), device = place(session.deviceID), bundle = place(session.bundleID)
        let viewStart = scratch.count
        row.view.write(id: id, to: &scratch)
        let view = viewStart..<scratch.count
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, id)
        sqlite3_bind_int64(handle, 2, session.key)
        sqlite3_bind_int64(handle, 3, Int64(row.event.sequence))
        sqlite3_bind_double(handle, 4, row.facts.timestamp)
        if let status = row.facts.httpStatus {
            sqlite3_bind_int64(handle, 8, Int64(status))
        } else {
            sqlite3_bind_null(handle, 8)
        }
        try scratch.withUnsafeBufferPointer { bytes in
            defer { sqlite3_clear_bindings(handle) }
            func bind(_ range: Range<Int>?, at index: Int32) {
                guard let range else {
                    sqlite3_bind_null(handle, index)
                    return
                }
                let start = UnsafeRawPointer(bytes.baseAddress! + range.lowerBound).assumingMemoryBound(to: CChar.self)
                sqlite3_bind_text(handle, index, start, Int32(range.count), nil)  // nil: SQLITE_STATIC
            }
            bind(kind, at: 5)
            bind(requestor, at: 6)
            bind(mvpd, at: 7)
            bind(summary, at: 9)
            bind(view, at: 10)
            if deviceApp {
                bind(device, at: 11)
                bind(bundle, at: 12)
            }
            try step()
        }
    }

    /// Runs the bound statement once.
    private func step() throws {
        let handle = statement.sqliteStatement
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }
}
