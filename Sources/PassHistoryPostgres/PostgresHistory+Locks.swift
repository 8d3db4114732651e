import Foundation
import PassHistory
import PostgresNIO

extension PostgresHistory {
    /// Runs `body` holding PostgreSQL's session advisory lock for `key` (``lockID(_:)``) on a connection leased for it:
    /// every console on the database that asks for the same key waits its turn. Released when `body` ends, or by the
    /// server when the connection is lost.
    public func withExclusiveLock<T: Sendable>(_ key: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let id = Self.lockID(key), logger = self.logger
        return try await client.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(\(id))", logger: logger)
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            do {
                try await connection.query("SELECT pg_advisory_unlock(\(id))", logger: logger)
            } catch {
                // A connection that cannot unlock is closed, and its session's locks go with it.
                try? await connection.close()
            }
            return try result.get()
        }
    }

    /// A stable 64-bit ID for a lock name (FNV-1a over its UTF-8): the same on every console and every run.
    static func lockID(_ key: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}
