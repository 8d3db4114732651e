import AccessEnabler
import Foundation
import HistoryTestSupport
import PassStorage
import Testing

/// Reversible means reversible: undo puts back only what a clear removed and keeps what apps stored since; an
/// import flags, before anything changes, every token the target's apps will refuse.
@Suite(.serialized)
struct StorageUndoAPITests {
    static let team = "phone/team:TEAM1234"
    static let tv = "tv/app:com.kidsnet.tv.app"

    func teamStorage(_ fixture: ConsoleFixture) throws -> TokenStorage {
        _ = try fixture.phoneTeamStorage()
        return try TokenStore(file: DeviceFolder(root: fixture.root.appendingPathComponent("phone")).teamShared(teamID: "TEAM1234"), domain: "t").load()
    }

    func tvBytes(_ fixture: ConsoleFixture) throws -> Data? {
        _ = try fixture.phoneTeamStorage()
        return try DeviceFolder(root: fixture.root.appendingPathComponent("tv")).appPrivate(bundleID: "com.kidsnet.tv.app").read()
    }

    /// Waits until the team storage satisfies `condition` (the SDK writes behind its calls).
    func waitForStorage(_ fixture: ConsoleFixture, _ what: String, _ condition: (TokenStorage) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if condition(try teamStorage(fixture)) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the storage never showed \(what)")
    }

    @Test(arguments: HistoryBackend.allCases) func undoOfAClearKeepsTheAuthorizationSportsOneObtainedSinceAndTheAuditSaysWhatItDid(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given Sports One signed in with DISH, and News signed in by single sign-on from it (the shared storage)
            try await fixture.signIn("sports-ios", mvpd: "Dish", user: "carol", password: "carol123")
            try await fixture.start("news-ios")
            try await fixture.call("news-ios", "checkAuthentication")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == true }
            let ref30 = try #require(try teamStorage(fixture).bucket(requestor: "REF30", mvpd: "Dish")?.authnToken)
            // When REF30 is cleared, Sports One then obtains a new `news` authorization, and support presses Undo
            let cleared = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)","requestorID":"REF30"}"#)
            let backupID = try #require(cleared.json["backupID"] as? String)
            try await fixture.call("sports-ios", "getAuthorization", ["resource": "news"])
            try await waitForStorage(fixture, "Sports One's news authorization") { $0.bucket(requestor: "SPORTS1", mvpd: "Dish")?.authzTokens["news"] != nil }
            let newer = try #require(try teamStorage(fixture).bucket(requestor: "SPORTS1", mvpd: "Dish")?.authzTokens["news"])
            let undone = await fixture.post("/api/storage/undo", json: #"{"backupID":"\#(backupID)"}"#)
            #expect(undone.status == 200, "\(undone.text)")
            // Then REF30 is back and the newer token is still there
            let storage = try teamStorage(fixture)
            #expect(storage.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken == ref30)
            #expect(storage.currentMvpd(requestor: "REF30") == "Dish")
            #expect(storage.bucket(requestor: "SPORTS1", mvpd: "Dish")?.authzTokens["news"] == newer)
            let items = undone.json["items"] as? [[String: Any]] ?? []
            #expect(items.contains { $0["action"] as? String == "restored" && $0["item"] as? String == "authentication token of REF30 / Dish" })
            #expect(items.contains { $0["action"] as? String == "kept" && $0["item"] as? String == "authorization token for news (SPORTS1 / Dish)" })
            // And the audit says exactly what was restored and what was kept, and why
            let audit = await fixture.get("/api/audit").json["entries"] as? [[String: Any]] ?? []
            let entry = try #require(audit.first { $0["action"] as? String == "undo" }?["detail"] as? String)
            #expect(entry.contains("restored"))
            #expect(entry.contains("authentication token of REF30 / Dish"))
            #expect(entry.contains("kept 1: authorization token for news (SPORTS1 / Dish) (added after the change)"))
            #expect(!entry.contains("as before"))
        }
    }

    @Test(arguments: HistoryBackend.allCases) func aNewerTokenInTheSlotTheClearEmptiedIsKeptAndADryRunSaysSoFirst(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await waitForStorage(fixture, "the news authorization") { $0.bucket(requestor: "REF30", mvpd: "Cablevision")?.authzTokens["news"] != nil }
            let cleared = await fixture.post("/api/storage/clear",
                json: #"{"domain":"\#(Self.team)","requestorID":"REF30","mvpdID":"Cablevision","resource":"news"}"#)
            let backupID = try #require(cleared.json["backupID"] as? String)
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await waitForStorage(fixture, "a newer news authorization") { $0.bucket(requestor: "REF30", mvpd: "Cablevision")?.authzTokens["news"] != nil }
            let now = try teamStorage(fixture)
            // A dry run says what undo would do and changes nothing
            let dry = await fixture.post("/api/storage/undo", json: #"{"backupID":"\#(backupID)","dryRun":true}"#)
            #expect(dry.status == 200)
            #expect(dry.json["dryRun"] as? Bool == true)
            #expect((dry.json["summary"] as? String ?? "").contains("the newer one is kept"))
            #expect(try teamStorage(fixture) == now)
            // Undo keeps the newer token
            let undone = await fixture.post("/api/storage/undo", json: #"{"backupID":"\#(backupID)"}"#)
            #expect(undone.status == 200)
            #expect(try teamStorage(fixture) == now)
            let items = undone.json["items"] as? [[String: Any]] ?? []
            #expect(items.count == 1)
            #expect(items.first?["action"] as? String == "kept")
            #expect(items.first?["reason"] as? String == "a newer one was stored after the change; the newer one is kept")
            // The undo is itself backed up: undoing it is possible and changes nothing here
            #expect(undone.json["backupID"] is String)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func aFileDamagedSinceTheClearIsPutBackWholeSinceNothingInItCanBeKept(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            let before = try #require(try fixture.phoneTeamStorage())
            let cleared = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)"}"#)
            let backupID = try #require(cleared.json["backupID"] as? String)
            try DeviceFolder(root: fixture.root.appendingPathComponent("phone")).teamShared(teamID: "TEAM1234").write(Data("{broken".utf8))
            let undone = await fixture.post("/api/storage/undo", json: #"{"backupID":"\#(backupID)"}"#)
            #expect(undone.status == 200, "\(undone.text)")
            #expect((undone.json["summary"] as? String ?? "").contains("could not be read since the change"))
            #expect(try fixture.phoneTeamStorage() == before)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func anAppWritingWhileADamagedFileIsPutBackFindsItsWriteInTheUndosBackup(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            let cleared = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)"}"#)
            let backupID = try #require(cleared.json["backupID"] as? String)
            let file = try DeviceFolder(root: fixture.root.appendingPathComponent("phone")).teamShared(teamID: "TEAM1234")
            try file.write(Data("{broken".utf8))
            let backupsBefore = try await fixture.console.history.backups().count
            // An app holds the storage lock (as the SDK does while it writes) when the undo comes.
            let lock = open(file.lockURL.path, O_RDWR | O_CREAT, 0o600)
            #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)
            async let undone = fixture.post("/api/storage/undo", json: #"{"backupID":"\#(backupID)"}"#)
            // The undo has read the damaged file and backed it up, and waits for the lock; the app writes, then lets go.
            let deadline = ContinuousClock.now + .seconds(10)
            while try await fixture.console.history.backups().count == backupsBefore, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await fixture.console.history.backups().count > backupsBefore, "the undo never backed the file up")
            let appWrite = Data(#"{"written":"by the app while the undo waited"}"#.utf8)
            try appWrite.write(to: file.url, options: .atomic)
            flock(lock, LOCK_UN)
            close(lock)
            let result = await undone
            #expect(result.status == 200, "\(result.text)")
            // What the restore replaced is the app's write, and the undo's own backup holds it: undoing the undo gives it back.
            let undoBackupID = try #require(result.json["backupID"] as? String)
            let undoBackup = try #require(try await fixture.console.history.backup(undoBackupID))
            #expect(undoBackup.documents.first?.contents == appWrite)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func thePhonesLiveExportImportedIntoTheTVAppIsFlaggedAsRefusedBeforeAnythingChanges(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given the phone's live export (News signed in and authorized for news)
            try await fixture.signIn()
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await waitForStorage(fixture, "the news authorization") { $0.bucket(requestor: "REF30", mvpd: "Cablevision")?.authzTokens["news"] != nil }
            let file = await fixture.get("/api/storage/export?domain=\(Self.team)&reveal=true").body
            let before = try tvBytes(fixture)
            // When it is previewed into the Apple TV app's storage
            let preview = await fixture.post("/api/storage/import?domain=\(Self.tv)&dryRun=true", body: file)
            #expect(preview.status == 200, "\(preview.text)")
            // Then every token is flagged with the rule the TV app refuses it by, and none would be added
            let changes = preview.json["changes"] as? [[String: Any]] ?? []
            let tokens = changes.filter { ($0["item"] as? String ?? "").hasSuffix("token") || ($0["item"] as? String ?? "").contains("token for") }
            #expect(tokens.count == 2)
            for change in tokens {
                #expect(change["action"] as? String == "refused")
                #expect(change["refusedBy"] as? String == "device")
                #expect((change["refusal"] as? String ?? "").hasPrefix("will be refused: bound to another device ID; com.kidsnet.tv.app"))
            }
            #expect((preview.json["summary"] as? [String: Int])?["added"] == 0)
            #expect(preview.json["refused"] as? Int == 2)
            #expect(preview.json["judgedFor"] as? [String] == ["com.kidsnet.tv.app"])
            #expect(try tvBytes(fixture) == before)
            // Applying by default leaves them out: nothing changes
            let skipped = await fixture.post("/api/storage/import?domain=\(Self.tv)", body: file)
            #expect(skipped.json["applied"] as? Bool == false)
            #expect(try tvBytes(fixture) == before)
            // On explicit request they are imported, still flagged, and the audit says so
            let forced = await fixture.post("/api/storage/import?domain=\(Self.tv)&includeRefused=true", body: file)
            #expect(forced.json["applied"] as? Bool == true)
            // (the two tokens, the user metadata that came with the authN token, and REF30's selected MVPD)
            #expect((forced.json["summary"] as? [String: Int])?["added"] == 4)
            #expect((forced.json["changes"] as? [[String: Any]] ?? []).filter { $0["refusal"] is String }.count == 2)
            #expect(try tvBytes(fixture) != before)
            let audit = await fixture.get("/api/audit").json["entries"] as? [[String: Any]] ?? []
            let auditDetail = audit.first?["detail"] as? String ?? ""
            #expect(auditDetail.contains("2 the apps there will refuse, imported on request"), "\(auditDetail)")
            // The import and its undo count the same items (issue #27 item 5: the user metadata that came with a
            // token was one item in the undo and none in the import)
            let summary = forced.json["summary"] as? [String: Int] ?? [:]
            let backupID = try #require(forced.json["backupID"] as? String)
            let undo = await fixture.post("/api/storage/undo", json: #"{"backupID":"\#(backupID)","dryRun":true}"#)
            let items = undo.json["items"] as? [[String: Any]] ?? []
            let undone = items.filter { ["removed", "restored"].contains($0["action"] as? String ?? "") }
            #expect(undone.count == (summary["added"] ?? 0) + (summary["overwritten"] ?? 0), "import \(summary), undo \(items)")
        }
    }

    @Test(arguments: HistoryBackend.allCases) func expiredTokensAndAnMVPDTheProgrammerDoesNotIntegrateAreFlaggedByTheirRule(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            let export = await fixture.get("/api/storage/export?domain=\(Self.team)&reveal=true").body
            _ = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)"}"#)
            // The REF30 bucket filed under KIDSNET, which does not integrate Cablevision
            var object = try #require(try JSONSerialization.jsonObject(with: export) as? [String: Any])
            var domains = try #require(object["domains"] as? [[String: Any]])
            var storage = try #require(domains[0]["storage"] as? [String: Any])
            var requestors = try #require(storage["requestors"] as? [String: Any])
            requestors["KIDSNET"] = requestors.removeValue(forKey: "REF30")
            storage["requestors"] = requestors
            domains[0]["storage"] = storage
            object["domains"] = domains
            let moved = try JSONSerialization.data(withJSONObject: object)
            let issuer = await fixture.post("/api/storage/import?domain=\(Self.team)&dryRun=true", body: moved)
            let refused = (issuer.json["changes"] as? [[String: Any]] ?? []).filter { $0["action"] as? String == "refused" }
            #expect(refused.count == 1)
            #expect(refused.first?["refusedBy"] as? String == "issuer")
            let refusal = refused.first?["refusal"] as? String ?? ""
            #expect(refusal.contains("KIDSNET does not integrate"), "\(refusal)")
            // Two days on, the Optimum token (24 h) has expired
            fixture.clock.advance(by: 2 * 86400)
            let late = await fixture.post("/api/storage/import?domain=\(Self.team)&dryRun=true", body: export)
            let expired = (late.json["changes"] as? [[String: Any]] ?? []).filter { $0["action"] as? String == "refused" }
            #expect(expired.count == 1)
            #expect(expired.first?["refusedBy"] as? String == "ttl")
        }
    }
}
