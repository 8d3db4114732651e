import Foundation
import PassHistory
import PostgresNIO

extension PostgresHistory {
    /// Records a console action (dates as seconds since 1970, as the SQLite history's `audit` table).
    @discardableResult
    public func audit(_ action: String, detail: String, remote: String, operator operatorName: String? = nil, at: Date = Date())
        async throws -> AuditEntry
    {
        let id = try await client.query("""
            INSERT INTO audit (at, action, detail, remote, operator)
            VALUES (\(at.timeIntervalSince1970), \(action), \(detail), \(remote), \(operatorName)) RETURNING id
            """, logger: logger).collectColumn(Int64.self).first
        return AuditEntry(id: id, at: at, action: action, detail: detail, remote: remote, operatorName: operatorName)
    }

    /// The audit log, newest first.
    public func auditEntries(limit: Int = 500) async throws -> [AuditEntry] {
        let rows = try await client.query(
            "SELECT id, at, action, detail, remote, operator FROM audit ORDER BY id DESC LIMIT \(max(1, limit))", logger: logger)
        var entries: [AuditEntry] = []
        for (id, at, action, detail, remote, operatorName) in try rows.decode((Int64, Double, String, String, String, String?).self) {
            entries.append(AuditEntry(id: id, at: Date(timeIntervalSince1970: at), action: action, detail: detail, remote: remote,
                operatorName: operatorName))
        }
        return entries
    }

    /// Keeps `backup` (and forgets all but the newest `keep` backups); a kept ID is replaced. One transaction.
    public func saveBackup(_ backup: StorageBackup, keep: Int = 50) async throws {
        let documents = String(decoding: try JSONEncoder().encode(backup.documents), as: UTF8.self)
        try await client.withTransaction(logger: logger) { [logger] connection in
            try await connection.query("""
                INSERT INTO backup (id, at, reason, documents) VALUES (\(backup.id), \(backup.at.timeIntervalSince1970), \(backup.reason),
                    \(documents)::jsonb)
                ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at, reason = EXCLUDED.reason, documents = EXCLUDED.documents
                """, logger: logger)
            try await connection.query(
                "DELETE FROM backup WHERE id NOT IN (SELECT id FROM backup ORDER BY at DESC LIMIT \(max(1, keep)))", logger: logger)
        }
    }

    /// The backup with this ID, if kept.
    public func backup(_ id: String) async throws -> StorageBackup? {
        let rows = try await client.query("SELECT id, at, reason, documents::text FROM backup WHERE id = \(id)", logger: logger)
        for (id, at, reason, documents) in try rows.decode((String, Double, String, String).self) {
            return StorageBackup(id: id, at: Date(timeIntervalSince1970: at), reason: reason,
                documents: try JSONDecoder().decode([StorageBackup.Document].self, from: Data(documents.utf8)))
        }
        return nil
    }

    /// Kept backups, newest first (without their documents' bytes).
    public func backups() async throws -> [(id: String, at: Date, reason: String)] {
        let rows = try await client.query("SELECT id, at, reason FROM backup ORDER BY at DESC", logger: logger)
        var backups: [(id: String, at: Date, reason: String)] = []
        for (id, at, reason) in try rows.decode((String, Double, String).self) {
            backups.append((id, Date(timeIntervalSince1970: at), reason))
        }
        return backups
    }
}
