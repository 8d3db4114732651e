import Foundation
import GRDB

/// One thing a person did in the console: clear, import, export, reveal, undo. Kept in the `audit` table.
public struct AuditEntry: Codable, Sendable, Equatable, Identifiable, FetchableRecord, PersistableRecord {
    /// The table the entries live in.
    public static let databaseTableName = "audit"

    /// Increases with every entry.
    public var id: Int64?
    /// When it happened.
    public var at: Date
    /// What was done: `clear`, `import`, `export`, `reveal`, `undo`.
    public var action: String
    /// What it touched, in words (`cleared REF30/Cablevision in team TEAM1234: 1 authN token, 2 authZ tokens`).
    public var detail: String
    /// Who asked: the client's address.
    public var remote: String
    /// The named operator who asked; `nil` on a console without named operators (its one user, or its access token).
    public var operatorName: String?

    /// Creates an entry (its `id` is set when stored).
    public init(id: Int64? = nil, at: Date, action: String, detail: String, remote: String, operatorName: String? = nil) {
        self.id = id
        self.operatorName = operatorName
        self.at = at
        self.action = action
        self.detail = detail
        self.remote = remote
    }

    public init(row: Row) throws {
        id = row["id"]
        at = Date(timeIntervalSince1970: row["at"])
        action = row["action"]
        detail = row["detail"]
        remote = row["remote"]
        operatorName = row["operator"]
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["at"] = at.timeIntervalSince1970
        container["action"] = action
        container["detail"] = detail
        container["remote"] = remote
        container["operator"] = operatorName
    }
}

extension HistoryDatabase {
    /// Records a console action.
    @discardableResult
    public func audit(_ action: String, detail: String, remote: String, operator operatorName: String? = nil, at: Date = Date())
        async throws -> AuditEntry
    {
        try await writer.write { db in
            var entry = AuditEntry(at: at, action: action, detail: detail, remote: remote, operatorName: operatorName)
            try entry.insert(db)
            entry.id = db.lastInsertedRowID
            return entry
        }
    }

    /// The audit log, newest first.
    public func auditEntries(limit: Int = 500) async throws -> [AuditEntry] {
        try await writer.read { db in
            try AuditEntry.order(Column("id").desc).limit(max(1, limit)).fetchAll(db)
        }
    }
}
