import Foundation
import GRDB

/// Storage documents as they were before a console change, so the change can be undone with one click (also after
/// a restart). Each document is the file's bytes, or `nil` when the file did not exist.
public struct StorageBackup: Codable, Sendable, Equatable, Identifiable {
    /// One file's content before the change.
    public struct Document: Codable, Sendable, Equatable {
        /// The storage domain (`team:TEAM1234`, `app:com.example.tv`).
        public var domain: String
        /// The file's path.
        public var path: String
        /// The bytes, or `nil` when the file did not exist.
        public var contents: Data?
        /// The bytes the change left, when it was recorded (backups taken before this field existed have none):
        /// undo compares them with the file as it is now to tell what the change did from what happened since.
        public var after: Data?

        /// A file's bytes before a change (`contents`, nil when it did not exist) and, when known, after it.
        public init(domain: String, path: String, contents: Data?, after: Data? = nil) {
            self.domain = domain
            self.path = path
            self.contents = contents
            self.after = after
        }
    }

    /// A random ID the undo button names.
    public var id: String
    /// When it was taken.
    public var at: Date
    /// Why (`clear REF30 in team TEAM1234`).
    public var reason: String
    /// The files it restores.
    public var documents: [Document]

    /// A backup of `documents`, taken now unless `at` says otherwise.
    public init(id: String = UUID().uuidString, at: Date = Date(), reason: String, documents: [Document]) {
        self.id = id
        self.at = at
        self.reason = reason
        self.documents = documents
    }
}

extension HistoryDatabase {
    /// Keeps `backup` (and forgets all but the newest `keep` backups). Saving a backup with a kept ID replaces it
    /// (the console saves one before a change and again, with what the change left, after it).
    public func saveBackup(_ backup: StorageBackup, keep: Int = 50) async throws {
        let documents = String(decoding: try JSONEncoder().encode(backup.documents), as: UTF8.self)
        try await writer.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO backup (id, at, reason, documents) VALUES (?, ?, ?, ?)",
                arguments: [backup.id, backup.at.timeIntervalSince1970, backup.reason, documents])
            try db.execute(
                sql: "DELETE FROM backup WHERE id NOT IN (SELECT id FROM backup ORDER BY at DESC LIMIT ?)",
                arguments: [max(1, keep)])
        }
    }

    /// The backup with this ID, if kept.
    public func backup(_ id: String) async throws -> StorageBackup? {
        // The row's values, not the row (a GRDB `Row` is not Sendable: the read would run synchronously).
        let values = try await writer.read { db -> (id: String, at: Double, reason: String, documents: String)? in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM backup WHERE id = ?", arguments: [id]) else { return nil }
            return (row["id"], row["at"], row["reason"], row["documents"])
        }
        guard let values else { return nil }
        let documents = try JSONDecoder().decode([StorageBackup.Document].self, from: Data(values.documents.utf8))
        return StorageBackup(id: values.id, at: Date(timeIntervalSince1970: values.at), reason: values.reason, documents: documents)
    }

    /// Kept backups, newest first (without their documents' bytes).
    public func backups() async throws -> [(id: String, at: Date, reason: String)] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT id, at, reason FROM backup ORDER BY at DESC").map {
                ($0["id"], Date(timeIntervalSince1970: $0["at"]), $0["reason"])
            }
        }
    }
}
