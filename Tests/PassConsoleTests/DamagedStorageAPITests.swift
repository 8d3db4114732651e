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
}
