import AccessEnabler
import Foundation
import HistoryTestSupport
import PassStorage
import Testing

/// A damaged storage file is explained in words — which file, which key, what is wrong — never with Swift's dump of a
/// decoding error (issue #27 item 5).
@Suite(.serialized)
struct DamagedStorageAPITests {
    static let team = "phone/team:TEAM1234"

    @Test(arguments: HistoryBackend.allCases) func aDamagedFileIsExplainedInWords(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            let file = try DeviceFolder(root: fixture.root.appendingPathComponent("phone")).teamShared(teamID: "TEAM1234")
            try file.write(Data(#"{"version":\#(TokenStorage.currentVersion),"requestors":{"REF30":"signed in"}}"#.utf8))
            let storage = await fixture.get("/api/storage").json
            let domain = try #require((storage["domains"] as? [[String: Any]])?.first { $0["id"] as? String == Self.team })
            let error = try #require(domain["error"] as? String)
            #expect(error.contains("The file \(file.url.lastPathComponent) of \(Self.team) cannot be read"), "\(error)")
            #expect(error.contains("requestors.REF30 should be an object, not text"), "\(error)")
            for dump in ["DecodingError", "CodingKeys", "Context(", "codingPath", "Swift."] {
                #expect(!error.contains(dump), "\(error)")
            }
            // The app's card says the same.
            let app = try await fixture.app("news-ios")
            let signIn = try #require((app["signIn"] as? [String: Any])?["text"] as? String)
            #expect(signIn.contains("requestors.REF30 should be an object, not text") && !signIn.contains("CodingKeys"), "\(signIn)")
        }
    }

    @Test func aBodyOfTheWrongShapeIsExplainedInWords() async throws {
        try await ConsoleFixture.with { fixture in
            let answer = await fixture.post("/api/storage/clear", json: #"{"domain":["phone/team:TEAM1234"]}"#)
            #expect(answer.status == 400)
            let detail = answer.json["detail"] as? String ?? ""
            #expect(detail == "domain should be text, not a list", "\(answer.text)")
        }
    }

    /// Issue #27 item 6: clear and import answered 409 `storage_unreadable` on a damaged file, though the message said
    /// "clear it, or import a good copy". Both replace it now; the damaged bytes are kept in the backup, and undo puts
    /// them back.
    @Test(arguments: HistoryBackend.allCases) func clearAndImportReplaceADamagedFileAndUndoPutsItBack(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            let good = await fixture.get("/api/storage/export?domain=\(Self.team)&reveal=true").body
            let file = try DeviceFolder(root: fixture.root.appendingPathComponent("phone")).teamShared(teamID: "TEAM1234")
            let damaged = Data("{broken".utf8)
            try file.write(damaged)

            // The clear dialog's dry run says what will happen; the clear replaces the file with an empty one.
            let preview = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)","requestorID":"REF30","dryRun":true}"#)
            #expect(preview.status == 200, "\(preview.text)")
            #expect((preview.json["removed"] as? [String])?.first?.contains("the whole storage file, which cannot be read") == true, "\(preview.text)")
            #expect(try file.read() == damaged, "a dry run changes nothing")
            let cleared = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)","requestorID":"REF30"}"#)
            #expect(cleared.status == 200, "\(cleared.text)")
            #expect(try TokenStore(file: file, domain: "t").load().isEmpty, "an empty storage the apps can read")
            let clearBackup = try #require(cleared.json["backupID"] as? String)
            #expect(try await fixture.console.history.backup(clearBackup)?.documents.first?.contents == damaged, "the damaged bytes are kept")

            // Undo puts the damaged bytes back as they were.
            let undone = await fixture.post("/api/storage/undo", json: #"{"backupID":"\#(clearBackup)"}"#)
            #expect(undone.status == 200, "\(undone.text)")
            #expect(try file.read() == damaged)

            // An import of a good copy replaces the damaged file whole.
            let imported = await fixture.post("/api/storage/import?domain=\(Self.team)", body: good)
            #expect(imported.status == 200, "\(imported.text)")
            #expect(imported.json["applied"] as? Bool == true)
            let restored = try TokenStore(file: file, domain: "t").load()
            #expect(restored.bucket(requestor: "REF30", mvpd: "Cablevision")?.authnToken != nil, "alice's sign-in is back")
            let importBackup = try #require(imported.json["backupID"] as? String)
            #expect(try await fixture.console.history.backup(importBackup)?.documents.first?.contents == damaged)
            let audit = try await fixture.console.history.auditEntries(limit: 10)
            #expect(audit.contains { $0.action == "import" && $0.detail.contains("replacing a file that could not be read") })
        }
    }
}
