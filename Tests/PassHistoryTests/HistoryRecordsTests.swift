import Foundation
import HistoryTestSupport
import PassHistory
import Testing

/// The audit log and the storage backups undo reads, on both histories.
@Suite("History audit and backups")
struct HistoryRecordsTests {
    @Test("audit entries read back newest first, each with its operator, IDs increasing, at most the limit", arguments: HistoryBackend.allCases)
    func auditLog(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            let at = Date(timeIntervalSince1970: 1_790_000_000.5)
            let first = try await history.audit("clear", detail: "cleared REF30/Cablevision", remote: "127.0.0.1", operator: "carol", at: at)
            let second = try await history.audit("undo", detail: "restored 2 documents", remote: "10.0.0.7", operator: nil,
                at: at.addingTimeInterval(5))
            #expect(try #require(second.id) > #require(first.id))
            let entries = try await history.auditEntries(limit: 10)
            #expect(entries == [second, first])
            #expect(entries.last == AuditEntry(id: first.id, at: at, action: "clear", detail: "cleared REF30/Cablevision", remote: "127.0.0.1",
                operatorName: "carol"))
            #expect(try await history.auditEntries(limit: 1) == [second])
        }
    }

    @Test("a backup reads back whole (a missing file stays missing), saving its ID again replaces it, only the newest are kept",
        arguments: HistoryBackend.allCases)
    func backups(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            let at = Date(timeIntervalSince1970: 1_790_000_000)
            let documents = [
                StorageBackup.Document(domain: "team:TEAM1234", path: "/d/shared/TEAM1234/storage.json", contents: Data("{\"a\":1}".utf8),
                    after: Data("{}".utf8)),
                StorageBackup.Document(domain: "app:com.example.tv", path: "/d/apps/com.example.tv/storage.json", contents: nil),
            ]
            let backup = StorageBackup(id: "b1", at: at, reason: "clear REF30 in team TEAM1234", documents: documents)
            try await history.saveBackup(backup, keep: 2)
            #expect(try await history.backup("b1") == backup)
            #expect(try await history.backup("unknown") == nil)
            // Saved again with what the change left: replaced, not added.
            var changed = backup
            changed.documents[1].after = Data("{\"b\":2}".utf8)
            try await history.saveBackup(changed, keep: 2)
            #expect(try await history.backup("b1") == changed)
            #expect(try await history.backups().map(\.id) == ["b1"])
            for (index, id) in ["b2", "b3"].enumerated() {
                try await history.saveBackup(StorageBackup(id: id, at: at.addingTimeInterval(Double(index + 1)), reason: id, documents: []), keep: 2)
            }
            let kept = try await history.backups()
            #expect(kept.map(\.id) == ["b3", "b2"])
            #expect(kept.first?.reason == "b3" && kept.first?.at == at.addingTimeInterval(2))
            #expect(try await history.backup("b1") == nil)
        }
    }
}
