import Foundation
import GRDB

extension HistoryDatabase {
    /// The values of `field` the search index holds for each of `sessions` (by session ID), sorted, each once: the
    /// visitor IDs the app set, for the Sessions page and a session's detail. Sessions without one are left out.
    public func values(of field: SessionField, sessions ids: [UUID]) async throws -> [UUID: [String]] {
        guard !ids.isEmpty else { return [:] }
        return try await writer.read { db in
            var result: [UUID: Set<String>] = [:]
            // In chunks, under SQLite's bound-parameter limit.
            for start in stride(from: 0, to: ids.count, by: 500) {
                let chunk = ids[start..<min(start + 500, ids.count)]
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT session.id, session_term.value FROM session_term JOIN session ON session.key = session_term.sessionKey
                    WHERE session_term.field = ? AND session.id IN (\(marks))
                    """, arguments: StatementArguments([field.rawValue] + chunk.map(\.uuidString)))
                while let row = try rows.next() {
                    guard let id = UUID(uuidString: row[0]) else { continue }
                    result[id, default: []].insert(row[1])
                }
            }
            return result.mapValues { $0.sorted() }
        }
    }
}
