import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// The visitor ID from end to end (issue 17 B.5, the cookbook's visitor ID section): `passconsole flow --visitor-id`
/// makes the app call `setOptions`, the real SDK sends it with every request, the real backend records it with the
/// sign-in and the authorization, the app's events reach the console's history, and the console's session search
/// finds the session by it and shows it.
struct VisitorIDEndToEndTests {
    static let visitor = "62917358410365271093745582011468093275"

    @Test(.enabled(if: BuiltBinary.passconsole != nil, Comment(rawValue: BuiltBinary.missingMessage)))
    func theConsoleFindsAndShowsTheSessionOfAVisitorID() async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            try await Self.signInFromTheCommandLine(fixture)

            // The backend recorded the visitor with the sign-in and the authorization (and says so on /admin/visitors).
            let records = fixture.backend.visitorRecords
            #expect(records.map(\.event) == [.signIn, .authorization], "\(records)")
            #expect(records.allSatisfy { $0.visitorID == Self.visitor })
            let admin = try await TestHTTPClient(baseURL: fixture.backendURL).get("/admin/visitors")
            let listed = (try? JSONSerialization.jsonObject(with: admin.body)) as? [[String: Any]]
            #expect(listed?.map { $0["visitorID"] as? String } == [Self.visitor, Self.visitor], "\(admin.text)")

            // The console's session search finds the run by the visitor ID, or by its first characters in any case.
            var rows: [[String: Any]] = []
            for _ in 0..<100 {  // the reporter's last batch is stored a moment after the run ends
                rows = await fixture.get("/api/sessions?q=\(Self.visitor.prefix(12))").json["sessions"] as? [[String: Any]] ?? []
                if !rows.isEmpty { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let row = try #require(rows.first, "no session found by the visitor ID")
            #expect(rows.count == 1)
            #expect(row["visitorIDs"] as? [String] == [Self.visitor])
            #expect((row["matches"] as? [[String: Any]])?.first?["field"] as? String == "visitorID")
            #expect(row["userID"] as? String == records.first?.userID, "the session's user is the one the backend recorded")
            // A session's detail shows it too; another visitor ID finds nothing.
            let id = try #require(row["id"] as? String)
            let detail = await fixture.get("/api/sessions/\(id)").json
            #expect(detail["visitorIDs"] as? [String] == [Self.visitor])
            let other = await fixture.get("/api/sessions?q=99999999999").json["sessions"] as? [[String: Any]]
            #expect(other?.isEmpty == true)
        }
    }

    /// `passconsole flow authorize … --visitor-id` as carol (Dish) on a device of its own, reporting to the console.
    static func signInFromTheCommandLine(_ fixture: ConsoleFixture) async throws {
        let binary = try #require(BuiltBinary.passconsole)
        let folder = fixture.root.appendingPathComponent("cli-phone")
        let output = fixture.root.appendingPathComponent("flow.out")
        let process = try ChildProcess(binary.path(percentEncoded: false), [
            "flow", "authorize", "--mvpd", "Dish", "--user", "carol", "--password", "carol123", "--resource", "news",
            "--visitor-id", visitor, "--backend", fixture.backendURL, "--device", folder.path,
            "--report-to", fixture.console.baseURL, "--timeout", String(Int(TestTime.seconds(60))),
        ], stdout: .file(output), stderr: .file(output))
        let status = await process.exited()
        try #require(status == 0, "\((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
    }
}
