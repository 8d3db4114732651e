import Foundation
import GRDB

/// What a named operator may do in the console (the rules are ``OperatorRole`` in PassConsole's `may(_:)`).
public enum OperatorRole: String, Codable, Sendable, CaseIterable {
    /// Reads everything, personal data redacted; changes nothing.
    case viewer
    /// Also clears, imports, undoes, replays and reveals.
    case `operator`
}

/// A person allowed into the console, kept in the `operator` table of the history every console of a team shares
/// (so adding or revoking one there takes effect in each of them). Only the SHA-256 of the personal token is kept.
public struct OperatorRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    /// The table the operators live in.
    public static let databaseTableName = "operator"

    /// The name people and the audit log know them by (unique).
    public var name: String
    /// What they may do.
    public var role: OperatorRole
    /// Lower-case hex SHA-256 of the personal token (the token itself is shown once and never stored).
    public var tokenHash: String
    /// When they were added.
    public var createdAt: Date
    /// When their token was revoked; `nil` while it is valid.
    public var revokedAt: Date?

    /// Creates a record.
    public init(name: String, role: OperatorRole, tokenHash: String, createdAt: Date, revokedAt: Date? = nil) {
        self.name = name
        self.role = role
        self.tokenHash = tokenHash
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    public init(row: Row) throws {
        name = row["name"]
        role = OperatorRole(rawValue: row["role"]) ?? .viewer  // an unknown role is read as the least one
        tokenHash = row["tokenHash"]
        createdAt = Date(timeIntervalSince1970: row["createdAt"])
        revokedAt = (row["revokedAt"] as Double?).map { Date(timeIntervalSince1970: $0) }
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["name"] = name
        container["role"] = role.rawValue
        container["tokenHash"] = tokenHash
        container["createdAt"] = createdAt.timeIntervalSince1970
        container["revokedAt"] = revokedAt?.timeIntervalSince1970
    }
}

/// What the history knows about a presented token: whether the console has named operators at all, and whose it is.
public struct OperatorLookup: Sendable, Equatable {
    /// Some operator was ever added (revoked ones count: revoking the last one must not open the console).
    public var hasOperators: Bool
    /// The operator whose token hash matched, revoked or not.
    public var match: OperatorRecord?

    /// Creates a lookup result.
    public init(hasOperators: Bool, match: OperatorRecord?) {
        self.hasOperators = hasOperators
        self.match = match
    }
}

/// Why an operator could not be added or revoked.
public struct OperatorStoreError: Error, CustomStringConvertible, Sendable {
    public let description: String

    /// The name is someone's already (names are never reused).
    package static func nameTaken(_ name: String) -> OperatorStoreError {
        OperatorStoreError(description: "An operator named '\(name)' already exists (names are never reused; pick another).")
    }
}

extension HistoryDatabase {
    /// v6: named operators (`operator`), and the operator each audit entry was done by (`audit.operator`).
    static func migrateToOperators(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE operator (
                name TEXT PRIMARY KEY NOT NULL,
                role TEXT NOT NULL,
                tokenHash TEXT NOT NULL UNIQUE,
                createdAt REAL NOT NULL,
                revokedAt REAL
            );
            ALTER TABLE audit ADD COLUMN operator TEXT;
            """)
    }

    /// Adds an operator. A name is never reused, even once revoked, so old audit lines keep naming one person.
    /// - Throws: ``OperatorStoreError`` when the name is taken.
    public func addOperator(_ record: OperatorRecord) async throws {
        try await writer.write { db in
            if try OperatorRecord.fetchOne(db, key: record.name) != nil {
                throw OperatorStoreError.nameTaken(record.name)
            }
            try record.insert(db)
        }
    }

    /// Every operator, revoked ones too, by name.
    public func operators() async throws -> [OperatorRecord] {
        try await writer.read { db in try OperatorRecord.order(Column("name")).fetchAll(db) }
    }

    /// Revokes `name`'s token from now on; returns the record, or `nil` when there is no such operator.
    public func revokeOperator(_ name: String, at: Date = Date()) async throws -> OperatorRecord? {
        try await writer.write { db in
            guard var record = try OperatorRecord.fetchOne(db, key: name) else { return nil }
            if record.revokedAt == nil {
                record.revokedAt = at
                try record.update(db)
            }
            return record
        }
    }

    /// Every operator, read synchronously on ``headReader()`` (a connection of its own, never the reader pool: a
    /// synchronous pool read on a Swift concurrency thread could wait for a reader only such a thread hands back).
    /// For a console being made or started; requests are judged on the console's copy (`OperatorDirectory`).
    public func operatorsNow() throws -> [OperatorRecord] {
        try headReader().read { db in try OperatorRecord.order(Column("name")).fetchAll(db) }
    }
}
