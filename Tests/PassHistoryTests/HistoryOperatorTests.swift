import Foundation
import HistoryTestSupport
import PassHistory
import Testing

/// Named operators as the history keeps them, on both histories.
@Suite("History operators")
struct HistoryOperatorTests {
    @Test("operators read back by name; a name is never given twice; revoking keeps the first time and names no stranger",
        arguments: HistoryBackend.allCases)
    func addListRevoke(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            let at = Date(timeIntervalSince1970: 1_790_000_000)
            let carol = OperatorRecord(name: "carol", role: .operator, tokenHash: String(repeating: "a", count: 64), createdAt: at)
            let bob = OperatorRecord(name: "Bob", role: .viewer, tokenHash: String(repeating: "b", count: 64), createdAt: at.addingTimeInterval(1))
            try await history.addOperator(carol)
            try await history.addOperator(bob)
            // Byte order: capitals first, as SQLite sorts.
            #expect(try await history.operators() == [bob, carol])
            await #expect(throws: OperatorStoreError.self) {
                try await history.addOperator(OperatorRecord(name: "carol", role: .viewer, tokenHash: String(repeating: "c", count: 64),
                    createdAt: at))
            }
            var revoked = try #require(try await history.revokeOperator("carol", at: at.addingTimeInterval(60)))
            #expect(revoked.revokedAt == at.addingTimeInterval(60) && revoked.role == .operator)
            revoked = try #require(try await history.revokeOperator("carol", at: at.addingTimeInterval(120)))
            #expect(revoked.revokedAt == at.addingTimeInterval(60))
            #expect(try await history.revokeOperator("mallory", at: at) == nil)
            #expect(try await history.operators().map(\.revokedAt) == [nil, at.addingTimeInterval(60)])
        }
    }
}
