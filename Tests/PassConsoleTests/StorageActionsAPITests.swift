import AccessEnabler
import Foundation
import HistoryTestSupport
import PassStorage
import Testing

/// Clear, undo, export and import through the API: each changes exactly what it says, takes a backup, is audited, and a
/// bad request leaves storage byte for byte as it was.
@Suite(.serialized)
struct StorageActionsAPITests {
    static let team = "phone/team:TEAM1234"

    func storageBytes(_ fixture: ConsoleFixture) throws -> Data? {
        try fixture.phoneTeamStorage()
    }

    @Test(arguments: HistoryBackend.allCases) func aDryRunListsWhatWouldGoAndWhoSharesItWithoutChangingAnything(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            let before = try storageBytes(fixture)
            let answer = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)","requestorID":"REF30","dryRun":true}"#)
            #expect(answer.status == 200)
            let removed = answer.json["removed"] as? [String] ?? []
            #expect(removed.contains("authentication token of REF30 / Cablevision"))
            #expect(removed.contains("selected MVPD Cablevision of REF30"))
            #expect(answer.json["sharedBy"] as? [String] == ["com.example.news.ios", "com.example.news.sports"])
            #expect(answer.json["backupID"] is NSNull || answer.json["backupID"] == nil)
            #expect(try storageBytes(fixture) == before)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func clearThenUndoPutsBackTheSameBytesAndBothAreAudited(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            let before = try #require(try storageBytes(fixture))
            let cleared = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)"}"#)
            #expect(cleared.status == 200)
            let backupID = try #require(cleared.json["backupID"] as? String)
            // The SDK sees the storage empty: checkAuthentication answers 0
            try await fixture.call("news-ios", "checkAuthentication")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == false }
            // Undo restores the file exactly
            let undone = await fixture.post("/api/storage/undo", json: #"{"backupID":"\#(backupID)"}"#)
            #expect(undone.status == 200)
            #expect(undone.json["restored"] as? [String] == [Self.team])
            #expect(try storageBytes(fixture) == before)
            let audit = await fixture.get("/api/audit").json["entries"] as? [[String: Any]] ?? []
            #expect(audit.compactMap { $0["action"] as? String }.prefix(2) == ["undo", "clear"])
            // An unknown backup is a 404
            #expect(await fixture.post("/api/storage/undo", json: #"{"backupID":"nope"}"#).status == 404)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func clearingOneAuthorizationTokenKeepsTheRest(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
            try await fixture.waitForApp("news-ios") { ($0["flow"] as? [String: Any])?["detail"] as? String == "Authorized for news: media token delivered." }
            let answer = await fixture.post("/api/storage/clear",
                json: #"{"domain":"\#(Self.team)","requestorID":"REF30","mvpdID":"Cablevision","resource":"news"}"#)
            #expect(answer.json["removed"] as? [String] == ["authorization token for news (REF30 / Cablevision)"])
            let storage = try TokenStore(file: DeviceFolder(root: fixture.root.appendingPathComponent("phone")).teamShared(teamID: "TEAM1234"), domain: "t").load()
            #expect(storage.bucket(requestor: "REF30", mvpd: "Cablevision")?.authnToken != nil)
            #expect(storage.bucket(requestor: "REF30", mvpd: "Cablevision")?.authzTokens.isEmpty == true)
            // A token scope without its MVPD is refused
            let bad = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)","resource":"news"}"#)
            #expect(bad.status == 400)
            #expect(bad.json["error"] as? String == "invalid_scope")
        }
    }

    @Test(arguments: HistoryBackend.allCases) func exportIsRedactedUnlessRevealedAndTheRevealIsAudited(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            let redacted = await fixture.get("/api/storage/export?domain=\(Self.team)")
            #expect(redacted.status == 200)
            #expect(redacted.header("Content-Disposition")?.contains("redacted") == true)
            #expect(!redacted.text.contains("<simpleAuthenticationToken"))
            #expect(redacted.json["redacted"] as? Bool == true)
            let revealed = await fixture.get("/api/storage/export?domain=\(Self.team)&reveal=true")
            #expect(revealed.json["redacted"] as? Bool == false)
            #expect(revealed.text.contains("signatureInfo"))
            let audit = await fixture.get("/api/audit").json["entries"] as? [[String: Any]] ?? []
            #expect(audit.compactMap { $0["action"] as? String } == ["reveal", "export"])
            // Importing the redacted file is refused with the reason, storage untouched
            let before = try storageBytes(fixture)
            let refused = await fixture.post("/api/storage/import?domain=\(Self.team)", body: redacted.body)
            #expect(refused.status == 400)
            #expect((refused.json["message"] as? String)?.contains("without live tokens") == true)
            #expect(try storageBytes(fixture) == before)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func importPreviewsThenAppliesAtomicallyWithABackup(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            let file = await fixture.get("/api/storage/export?domain=\(Self.team)&reveal=true").body
            _ = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)"}"#)
            try await fixture.call("news-ios", "checkAuthentication")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == false }
            let empty = try storageBytes(fixture)
            // A dry run shows the diff and changes nothing
            let preview = await fixture.post("/api/storage/import?domain=\(Self.team)&dryRun=true", body: file)
            #expect(preview.status == 200)
            #expect(preview.json["applied"] as? Bool == false)
            #expect((preview.json["summary"] as? [String: Int])?["added"] == 3, "the authN token, its user metadata, the selected MVPD")
            #expect(try storageBytes(fixture) == empty)
            // Applying stores the tokens; the SDK finds them
            let applied = await fixture.post("/api/storage/import?domain=\(Self.team)", body: file)
            #expect(applied.json["applied"] as? Bool == true)
            #expect(applied.json["backupID"] is String)
            try await fixture.call("news-ios", "checkAuthentication")
            try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == true }
            // Importing again skips what is already there
            let again = await fixture.post("/api/storage/import?domain=\(Self.team)&dryRun=true", body: file)
            #expect((again.json["summary"] as? [String: Int])?["skipped"] == 2)
            #expect((again.json["summary"] as? [String: Int])?["added"] == 0)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func aTamperedOrBrokenFileIsRejectedWithItsReasonAndStorageStaysAsItWas(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            let good = await fixture.get("/api/storage/export?domain=\(Self.team)&reveal=true").text
            let before = try storageBytes(fixture)
            for broken in ["", "not json", #"{"format":"passconsole-storage","formatVersion":1}"#, String(good.prefix(good.count / 2))] {
                let answer = await fixture.post("/api/storage/import?domain=\(Self.team)", body: Data(broken.utf8))
                #expect(answer.status == 400, "\(broken.prefix(40))")
                #expect(answer.json["error"] as? String == "invalid_import")
                #expect((answer.json["message"] as? String)?.hasSuffix("Nothing was changed.") == true)
            }
            #expect(try storageBytes(fixture) == before)
            // A token whose signature does not match the backend's key is rejected by name; with "fail" nothing applies
            let tampered = good.replacingOccurrences(of: "<simpleTokenExpires>", with: "<simpleTokenExpires>9")
            let preview = await fixture.post("/api/storage/import?domain=\(Self.team)&dryRun=true&policy=overwrite", body: Data(tampered.utf8))
            let changes = preview.json["changes"] as? [[String: Any]] ?? []
            #expect(changes.contains { $0["action"] as? String == "rejected" })
            let failed = await fixture.post("/api/storage/import?domain=\(Self.team)&policy=fail", body: Data(tampered.utf8))
            #expect(failed.status == 422)
            #expect(try storageBytes(fixture) == before)
            #expect(await fixture.post("/api/storage/import?domain=phone/nope:x", body: Data(good.utf8)).status == 400)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func anOlderStorageVersionIsImportedThroughTheSDKsImporter(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            let storage = try TokenStore(file: DeviceFolder(root: fixture.root.appendingPathComponent("phone")).teamShared(teamID: "TEAM1234"), domain: "t").load()
            let token = try #require(storage.bucket(requestor: "REF30", mvpd: "Cablevision")?.authnToken)
            _ = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)"}"#)
            var legacy = LegacyTokenStorage(version: .v2)
            legacy.setAuthnToken(token, requestor: "REF30")
            legacy.setValue("Cablevision", forKey: LegacyTokenStorage.Key.currentMvpdID)
            legacy.setValue("true", forKey: LegacyTokenStorage.Key.canAuthenticate)
            let answer = await fixture.post("/api/storage/import?domain=\(Self.team)", body: try JSONEncoder().encode(legacy))
            #expect(answer.status == 200, "\(answer.text)")
            #expect((answer.json["format"] as? String)?.contains("token importer") == true)
            #expect((answer.json["summary"] as? [String: Int])?["added"] == 1)
        }
    }
}
