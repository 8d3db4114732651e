import Foundation
import PassHistory
import PostgresNIO

extension PostgresHistory {
    /// Adds an operator. A name is never reused, even once revoked, so old audit lines keep naming one person; two
    /// consoles adding the same name at once: one wins, the other is refused (`ON CONFLICT DO NOTHING`).
    /// - Throws: ``OperatorStoreError`` when the name is taken.
    public func addOperator(_ record: OperatorRecord) async throws {
        let added = try await client.query("""
            INSERT INTO operator (name, role, token_hash, created_at, revoked_at)
            VALUES (\(record.name), \(record.role.rawValue), \(record.tokenHash), \(record.createdAt.timeIntervalSince1970),
                \(record.revokedAt?.timeIntervalSince1970))
            ON CONFLICT (name) DO NOTHING RETURNING name
            """, logger: logger).collectColumn(String.self)
        guard added.isEmpty else { return }
        throw OperatorStoreError.nameTaken(record.name)
    }

    /// Every operator, revoked ones too, by name (byte order, as SQLite's).
    public func operators() async throws -> [OperatorRecord] {
        try await Self.operators(client.query("SELECT name, role, token_hash, created_at, revoked_at FROM operator ORDER BY name",
            logger: logger))
    }

    /// Revokes `name`'s token from now on (a revoked token keeps its first revocation time); returns the record, or
    /// `nil` when there is no such operator.
    public func revokeOperator(_ name: String, at: Date = Date()) async throws -> OperatorRecord? {
        try await Self.operators(client.query("""
            UPDATE operator SET revoked_at = COALESCE(revoked_at, \(at.timeIntervalSince1970)) WHERE name = \(name)
            RETURNING name, role, token_hash, created_at, revoked_at
            """, logger: logger)).first
    }

    static func operators(_ rows: [PostgresRow]) throws -> [OperatorRecord] {
        var records: [OperatorRecord] = []
        for (name, role, tokenHash, createdAt, revokedAt) in try rows.decode((String, String, String, Double, Double?).self) {
            // An unknown role is read as the least one, as the SQLite history reads it.
            records.append(OperatorRecord(name: name, role: OperatorRole(rawValue: role) ?? .viewer, tokenHash: tokenHash,
                createdAt: Date(timeIntervalSince1970: createdAt), revokedAt: revokedAt.map(Date.init(timeIntervalSince1970:))))
        }
        return records
    }
}
