import AccessEnabler
import Foundation
import HistoryTestSupport
import PassProtocol
import Testing

/// Every export path (events as NDJSON and CSV, HAR, storage export, support bundle) leaves personal data out — the
/// demo user's GUID, user ID, household ID, ZIP code and a reported email — unless the operator reveals it on purpose,
/// which the audit log records; each file and its download headers say what was removed.
@Suite(.serialized)
struct ExportRedactionAPITests {
    static let team = "phone/team:TEAM1234"
    static let email = "alice.smith@example.com"

    /// alice signs in to News with Optimum, is authorized for news, and the app reads her household, ZIP and user
    /// ID from user metadata; another process reports an event naming her email. Returns her token's GUID and the
    /// session ID.
    static func aliceWithMetadata(_ fixture: ConsoleFixture) async throws -> (guid: String, session: String) {
        try await fixture.signIn()
        try await fixture.call("news-ios", "getAuthorization", ["resource": "news"])
        for name in ["householdID", "zip", "userID"] {
            try await fixture.call("news-ios", "getMetadata", ["key": "3", "user_metadata_name": name])
        }
        try await fixture.waitForApp("news-ios") {
            (($0["callbacks"] as? [[String: Any]]) ?? []).filter { $0["name"] as? String == "setMetadataStatus" }.count >= 3
        }
        let reported = EntitlementEvent(sequence: 1, timestamp: Date(), sessionID: UUID(), deviceID: "d",
            app: AppIdentity(bundleID: "com.reporter.app", teamID: "REPORT1"), requestorID: "REF30", mvpdID: "Cablevision",
            kind: .error(code: "X", message: "Support note: \(email) cannot watch sports (subscriberId=sub-777 refused)"))
        let ingest = await fixture.post("/api/ingest", body: try EntitlementEvent.Wire.ndjson([reported]),
            headers: [("Host", "127.0.0.1:8080"), ("Content-Type", "application/x-ndjson")])
        try #require(ingest.json["accepted"] as? Int == 1)
        try await fixture.waitUntilRecorded(atLeast: 30)
        let storage = await fixture.get("/api/storage").json
        let guid = try #require(Self.userIDs(in: storage).first)
        let app = try await fixture.app("news-ios")
        return (guid, try #require(app["sessionID"] as? String))
    }

    static func userIDs(in value: Any) -> [String] {
        if let object = value as? [String: Any] {
            return object.flatMap { name, child in (name == "userID" ? [child as? String].compactMap { $0 } : []) + userIDs(in: child) }
        }
        return (value as? [Any])?.flatMap(userIDs) ?? []
    }

    @Test(arguments: HistoryBackend.allCases) func noExportPathLeaksAUserIDHouseholdZIPOrEmailAndEachSaysWhatItRemoved(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            let (guid, session) = try await Self.aliceWithMetadata(fixture)
            // sub-777 is named only inside the reported error's free text (issue #27 item 14).
            let personal = [guid, "Cablevision-alice", "hh-alice", "10001", Self.email, "sub-777"]
            // The history itself keeps them (a support person searches by them) ...
            let raw = await fixture.get("/api/events?limit=500").text
            #expect(raw.contains(guid) && raw.contains("hh-alice"))

            // ... every export does not.
            let exports = [
                ("NDJSON", "/api/events/export?format=ndjson"), ("filtered NDJSON", "/api/events/export?format=ndjson&q=event:callback"),
                ("CSV", "/api/events/export?format=csv"), ("HAR", "/api/network/har"),
                ("storage export", "/api/storage/export?domain=\(Self.team)"), ("support bundle", "/api/sessions/\(session)/bundle"),
            ]
            var standIns: [String: String] = [:]
            for (name, path) in exports {
                let answer = await fixture.get(path)
                #expect(answer.status == 200, "\(name): \(answer.text.prefix(300))")
                for value in personal { #expect(!answer.text.contains(value), "the \(name) holds \(value)") }
                let redacted = answer.header("X-PassConsole-Redacted") ?? ""
                #expect(redacted.contains("user IDs"), "\(name) says it removed: \(redacted)")
                #expect(Int(answer.header("X-PassConsole-Export-Count") ?? "") ?? 0 > 0, "\(name) counts nothing")
                // Issue #27 item 5: the storage domain `phone/team:TEAM1234` put a `/` into the file's name.
                let disposition = answer.header("Content-Disposition") ?? ""
                let filename = disposition.components(separatedBy: "filename=\"").last?.dropLast() ?? ""
                #expect(disposition.hasPrefix("attachment; filename=\"") && !filename.isEmpty, "\(name): \(disposition)")
                #expect(filename.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }, "\(name): \(disposition)")
                standIns[name] = answer.text
            }
            // A user's rows still group: her GUID has one stand-in, in the events and in the bundle alike.
            let bundleHashes = Self.matches(#"u-[0-9a-f]{8}"#, in: standIns["support bundle"] ?? "")
            #expect(!bundleHashes.isEmpty)
            #expect(bundleHashes.isSubset(of: Self.matches(#"u-[0-9a-f]{8}"#, in: standIns["NDJSON"] ?? "")))
            #expect(standIns["NDJSON"]?.contains("[ZIP removed]") == true)

            // Each file says what was removed and the rule, in the file itself.
            let ndjson = try #require(standIns["NDJSON"])
            let header = try #require(ndjson.split(separator: "\n").first)
            let note = try #require((try JSONSerialization.jsonObject(with: Data(header.utf8)) as? [String: Any])?["passconsoleExport"] as? [String: Any])
            let report = try #require(note["personalData"] as? [String: Any])
            #expect(report["revealed"] as? Bool == false)
            #expect(Set(report["removed"] as? [String] ?? []).isSuperset(of: ["userID", "householdID", "zip", "email"]))
            #expect((report["rule"] as? String)?.contains("stable hash") == true)
            #expect(standIns["CSV"]?.hasPrefix("# PassConsole events export. Redacted: user IDs;") == true)
            #expect(standIns["CSV"]?.split(separator: "\r\n").first?.contains("ZIP codes") == true)
            let har = try #require(try JSONSerialization.jsonObject(with: Data(standIns["HAR"]!.utf8)) as? [String: Any])
            #expect(((har["log"] as? [String: Any])?["comment"] as? String)?.hasPrefix("Redacted: user IDs") == true)
            let storage = try #require(try JSONSerialization.jsonObject(with: Data(standIns["storage export"]!.utf8)) as? [String: Any])
            #expect((storage["personalData"] as? [String: Any])?["removed"] as? [String] == ["userID", "householdID", "zip"])
            let bundle = try #require(try JSONSerialization.jsonObject(with: Data(standIns["support bundle"]!.utf8)) as? [String: Any])
            #expect(((bundle["manifest"] as? [String: Any])?["personalData"] as? [String: Any])?["revealed"] as? Bool == false)

            // The NDJSON export can be ingested again as it is: its note line is skipped, not refused.
            let again = await fixture.post("/api/ingest", body: Data(ndjson.utf8),
                headers: [("Host", "127.0.0.1:8080"), ("Content-Type", "application/x-ndjson")])
            #expect((again.json["rejected"] as? [Any])?.isEmpty == true)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func revealingPersonalDataIsAChoiceTheAuditLogRecords(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            let (guid, session) = try await Self.aliceWithMetadata(fixture)
            for path in ["/api/events/export?format=ndjson&reveal=personal", "/api/network/har?reveal=personal",
                         "/api/sessions/\(session)/bundle?reveal=personal"] {
                let answer = await fixture.get(path)
                #expect(answer.text.contains(guid), "\(path) hides what was revealed")
                #expect(answer.header("X-PassConsole-Redacted") == "nothing: revealed on purpose")
            }
            // A storage export with personal data keeps user metadata but still only token previews; live tokens
            // (reveal=true) carry personal data too.
            let personal = await fixture.get("/api/storage/export?domain=\(Self.team)&reveal=personal")
            #expect(personal.text.contains("hh-alice") && personal.json["redacted"] as? Bool == true)
            let live = await fixture.get("/api/storage/export?domain=\(Self.team)&reveal=true")
            #expect(live.text.contains("hh-alice") && live.json["redacted"] as? Bool == false)
            let audit = await fixture.get("/api/audit").json["entries"] as? [[String: Any]] ?? []
            let reveals = audit.filter { $0["action"] as? String == "reveal" }.compactMap { $0["detail"] as? String }
            #expect(reveals.count == 5)
            #expect(reveals.contains { $0.contains("events WITH personal data") })
            #expect(reveals.contains { $0.contains("Support bundle") && $0.contains("WITH personal data") })
            #expect(reveals.contains { $0.contains("WITH live tokens and personal data") })
            // A reveal that is not one of the choices is refused in words.
            let bad = await fixture.get("/api/events/export?format=ndjson&reveal=everything-please")
            #expect(bad.status == 400 && bad.json["error"] as? String == "invalid_parameter")
        }
    }

    static func matches(_ pattern: String, in text: String) -> Set<String> {
        var found: Set<String> = []
        var rest = text[...]
        while let range = rest.range(of: pattern, options: .regularExpression) {
            found.insert(String(rest[range]))
            rest = rest[range.upperBound...]
        }
        return found
    }
}
