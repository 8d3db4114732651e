import AccessEnabler
import Foundation
import HistoryTestSupport
import PassHistory
import PassHistoryPostgres
import PassStorage
import PassTestSupport
import Testing

/// Storage actions of two `passconsole serve` processes on one PostgreSQL history and one device folder (issue #18
/// item 2): each action (read, back up, write, audit) holds the folder's action lock from start to end, so the actions
/// of both consoles form one chain: each backup's "before" is exactly what the action before it left, and undoing them
/// newest first walks the storage back through every state.
@Suite(.serialized)
struct StorageActionLockServeTests {
    static let teamID = "TEAMLOCK"
    static let domain = "phone/team:\(teamID)"
    static let rounds = 12

    /// Requestor `i`'s storage: MVPDs A and B, each with user metadata, A selected.
    static func seeded() -> TokenStorage {
        var storage = TokenStorage()
        for i in 0..<rounds {
            storage.requestors["R\(i)"] = TokenStorage.RequestorBucket(currentMvpdID: "A", mvpds: [
                "A": TokenStorage.MVPDBucket(userMeta: "meta-A-\(i)"), "B": TokenStorage.MVPDBucket(userMeta: "meta-B-\(i)"),
            ])
        }
        return storage
    }

    /// A storage file selecting MVPD B for requestor `i` (nothing in it needs a signature).
    static func selectingB(_ i: Int) throws -> Data {
        var storage = TokenStorage()
        storage.requestors["R\(i)"] = TokenStorage.RequestorBucket(currentMvpdID: "B", mvpds: ["B": TokenStorage.MVPDBucket()])
        return try TokenStore.encoder.encode(storage)
    }

    @Test func concurrentClearsAndImportsOfTwoConsolesOnOneFolderFormOneUndoChain() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase()
        let url = "postgres://\(cluster.user):\(cluster.password)@\(cluster.host):\(cluster.port)/\(database)"
        let folderA = try PostgresServeTests.folder()
        let folderB = try PostgresServeTests.folder()
        let shared = try PostgresServeTests.folder()
        defer { for folder in [folderA, folderB, shared] { try? FileManager.default.removeItem(at: folder) } }
        let file = try DeviceFolder(root: shared).teamShared(teamID: Self.teamID)
        let store = TokenStore(file: file, domain: "team \(Self.teamID)")
        _ = try store.update { $0 = Self.seeded() }

        let (processA, consoleA) = try await ServeProcess.start(folderA, history: url, arguments: ["--no-demo", "--device", shared.path])
        defer { processA.terminate() }
        let (processB, consoleB) = try await ServeProcess.start(folderB, history: url, arguments: ["--no-demo", "--device", shared.path])
        defer { processB.terminate() }
        let clientA = TestHTTPClient(baseURL: consoleA, timeout: TestTime.seconds(60))
        let clientB = TestHTTPClient(baseURL: consoleB, timeout: TestTime.seconds(60))
        // The page's CSRF token of each console, as the page sends it with a change
        let csrfA = try #require(try await clientA.get("/api/overview").json["csrfToken"] as? String)
        let csrfB = try #require(try await clientB.get("/api/overview").json["csrfToken"] as? String)
        let headersA = ["Content-Type": "application/json", AccessGuardHeader.csrf: csrfA]
        let headersB = ["Content-Type": "application/json", AccessGuardHeader.csrf: csrfB]

        // When both consoles act on the one folder at once: A clears MVPD A of each requestor, B imports B's selection
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<Self.rounds {
                group.addTask {
                    try await clientA.send("POST", "/api/storage/clear", headers: headersA,
                        body: Data(#"{"domain":"\#(Self.domain)","requestorID":"R\#(i)","mvpdID":"A"}"#.utf8)).status
                }
                group.addTask {
                    try await clientB.send("POST", "/api/storage/import?domain=\(Self.domain)", headers: headersB,
                        body: try Self.selectingB(i)).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")

        // Then every action left one backup and one audit line, and the backups, in the order they were taken, chain:
        // each one's "before" is what the one before it left, the first's the seeded storage, the last's "after" the file
        let history = try await cluster.openHistory(database: database)
        let listed = try await history.backups()
        #expect(listed.count == 2 * Self.rounds)
        let audit = try await history.auditEntries(limit: 1000).filter { $0.action == "clear" || $0.action == "import" }
        #expect(audit.count == 2 * Self.rounds)
        var backups: [StorageBackup] = []
        for item in listed.reversed() { if let backup = try await history.backup(item.id) { backups.append(backup) } }
        let decode = { (data: Data?) throws -> TokenStorage in try data.map { try TokenStore.decode($0) } ?? TokenStorage() }
        var expected = Self.seeded()
        for (index, backup) in backups.enumerated() {
            let document = try #require(backup.documents.first)
            #expect(try decode(document.contents) == expected, "backup \(index) (\(backup.reason)) does not start where the one before ended")
            expected = try decode(document.after)
        }
        #expect(try store.load() == expected)

        // And undoing them newest first walks back through every state to the seeded storage
        for backup in backups.reversed() {
            let undone = try await clientA.send("POST", "/api/storage/undo", headers: headersA,
                body: Data(#"{"backupID":"\#(backup.id)"}"#.utf8))
            #expect(undone.status == 200, "\(undone.text)")
            #expect(try store.load() == decode(backup.documents.first?.contents), "undo of \(backup.reason)")
        }
        #expect(try store.load() == Self.seeded())
        await history.close()
    }
}
