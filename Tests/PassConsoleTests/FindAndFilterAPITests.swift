import AccessEnabler
import Foundation
import HistoryTestSupport
import PassHistory
import PassTestSupport
import Testing

/// Finding the customer and forgiving filters through the API (issue #15, items 1 and 3).
@Suite(.serialized)
struct FindAndFilterAPITests {
    /// The user ID of the phone's REF30 sign-in with `mvpd`, as `GET /api/storage` gives it to the Tokens page.
    static func userID(_ fixture: ConsoleFixture, mvpd: String) async throws -> String {
        let storage = await fixture.get("/api/storage").json
        let team = try #require((storage["domains"] as? [[String: Any]])?.first { $0["id"] as? String == "phone/team:TEAM1234" })
        let programmer = try #require((team["programmers"] as? [[String: Any]])?.first { $0["requestorID"] as? String == "REF30" })
        let cell = try #require((programmer["mvpds"] as? [[String: Any]])?.first { $0["mvpdID"] as? String == mvpd })
        return try #require((cell["authn"] as? [String: Any])?["userID"] as? String)
    }

    static func sessions(_ fixture: ConsoleFixture, _ query: String) async -> [[String: Any]] {
        let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
        return await fixture.get("/api/sessions?q=\(encoded)").json["sessions"] as? [[String: Any]] ?? []
    }

    @Test(arguments: HistoryBackend.allCases) func theUserIDAsTheTokensPageShowsItTheUsernameAndTheMVPDFindTheSignedInSession(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given carol signed in with Dish in News, and Sports One started on the same phone
            try await fixture.signIn(mvpd: "Dish", user: "carol", password: "carol123")
            #expect(await fixture.post("/api/apps/sports-ios/start").status == 200)
            try await fixture.waitUntilRecorded(atLeast: 20)
            let guid = try await Self.userID(fixture, mvpd: "Dish")
            // When the support person types the start of the user ID the Tokens page shows, with its ellipsis
            let found = await Self.sessions(fixture, String(guid.prefix(8)).lowercased() + "…")
            // Then News's session is the one found, the match named and cut for highlighting
            #expect(found.count == 1)
            let session = try #require(found.first)
            #expect(session["bundleID"] as? String == "com.example.news.ios")
            let match = try #require((session["matches"] as? [[String: Any]])?.first)
            #expect(match["field"] as? String == "userID")
            #expect(match["matched"] as? String == String(guid.prefix(8)))
            #expect(match["before"] as? String == "")
            // And the row carries the list's columns: app name, MVPD, user, outcome
            #expect(session["appName"] as? String == "News")
            #expect(session["mvpdID"] as? String == "Dish")
            #expect(session["userID"] as? String == guid)
            #expect(session["username"] as? String == "carol")
            #expect(session["outcome"] as? String == "signedIn")
            #expect(session["outcomeLabel"] as? String == "signed in")
            // The username the backend signed in finds it too, in any case; so does the MVPD, lowercased
            let byName = await Self.sessions(fixture, "CAROL")
            #expect(byName.map { $0["id"] as? String } == [session["id"] as? String])
            #expect((byName.first?["matches"] as? [[String: Any]])?.first?["field"] as? String == "username")
            #expect(await Self.sessions(fixture, "dish").map { $0["id"] as? String } == [session["id"] as? String])
            // Both apps' names are told apart, and a word that matches neither finds nothing
            #expect(Set(await Self.sessions(fixture, "com.example.news").compactMap { $0["appName"] as? String }) == ["News", "Sports"])
            #expect(await Self.sessions(fixture, "nobody-has-this").isEmpty)
            // A whole user ID this console holds no token for finds the session through its tracking hash
            try await fixture.console.history.append([EntitlementEvent(sequence: 1, timestamp: Date(), sessionID: UUID(),
                deviceID: "elsewhere", app: AppIdentity(bundleID: "com.elsewhere.app", teamID: "E"), requestorID: "REF30", mvpdID: "Dish",
                kind: .tracking(event: .authenticationDetection, data: ["YES", "Dish", TrackingEvent.userHash(of: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0"),
                    "NO", "mobile", "ios", "iOS"]))])
            let elsewhere = await Self.sessions(fixture, "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")
            #expect(elsewhere.map { $0["bundleID"] as? String } == ["com.elsewhere.app"])
            // An over-long search is refused in words
            let long = await fixture.get("/api/sessions?q=" + String(repeating: "a", count: 600))
            #expect(long.status == 400)
            #expect(long.json["error"] as? String == "invalid_parameter")
        }
    }

    @Test(arguments: HistoryBackend.allCases) func filterValuesIgnoreCaseStatusTakesCodesAndRangesAndAnUnknownKeyIsExplained(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn(mvpd: "Dish", user: "carol", password: "carol123")
            try await fixture.waitUntilRecorded(atLeast: 15)
            let exact = await fixture.get("/api/events?q=mvpd:Dish%20programmer:REF30").json
            let typed = await fixture.get("/api/events?q=MVPD:dish%20programmer:ref30").json
            #expect((exact["matching"] as? Int ?? 0) > 0)
            #expect(typed["matching"] as? Int == exact["matching"] as? Int)
            #expect((typed["events"] as? [[String: Any]] ?? []).allSatisfy { ($0["event"] as? [String: Any])?["mvpdID"] as? String == "Dish" })
            let ok = await fixture.get("/api/events?q=status:200").json
            let range = await fixture.get("/api/events?q=status:200-299").json
            #expect((ok["matching"] as? Int ?? 0) > 0)
            #expect(range["matching"] as? Int == ok["matching"] as? Int)
            #expect(await fixture.get("/api/events?q=status:404").json["matching"] as? Int == 0)
            // An unknown key is not searched for as text: a 400 with the nearest key and the known keys
            let unknown = await fixture.get("/api/events?q=programer:REF30")
            #expect(unknown.status == 400)
            #expect(unknown.json["error"] as? String == "invalid_filter")
            #expect((unknown.json["message"] as? String)?.contains("Did you mean 'programmer:'?") == true)
            #expect((unknown.json["detail"] as? String)?.contains("mvpd:") == true)
            #expect(await fixture.get("/api/events?q=foo:bar").status == 400)
            #expect(await fixture.get("/api/events?q=%22foo:bar%22").status == 200)
            #expect(await fixture.get("/api/events?q=status:1000").status == 400)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func loadOlderReadsTheWindowBeforeTheOldestShownAndSkipsEmptyHours(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            // Given events three hours ago, two hours ago, and in the last ten minutes (two batches)
            let now = Date()
            let session = UUID()
            var sequence = 0
            func events(_ count: Int, minutesAgo: Double, _ name: String) -> [EntitlementEvent] {
                (0..<count).map { index in
                    sequence += 1
                    return EntitlementEvent(sequence: sequence, timestamp: now.addingTimeInterval(-minutesAgo * 60 + Double(index)),
                        sessionID: session, deviceID: "window-device", app: AppIdentity(bundleID: "com.window.app", teamID: "W"),
                        requestorID: "REF30", mvpdID: nil, kind: .apiCall(name: name, arguments: [:]))
                }
            }
            try await fixture.console.history.append(events(3, minutesAgo: 180, "threeHours") + events(4, minutesAgo: 120, "twoHours")
                + events(5, minutesAgo: 10, "recent"))
            func names(_ page: [String: Any]) -> Set<String> {
                Set((page["events"] as? [[String: Any]] ?? []).compactMap { $0["summary"] as? String })
            }
            // When "Load older" reads an hour at a time
            let first = await fixture.get("/api/events?q=app:com.window.app&window=3600").json
            #expect(names(first) == ["call recent()"])
            #expect((first["events"] as? [[String: Any]])?.count == 5)
            #expect(first["window"] is [String: Any])
            let cursor = try #require(first["nextCursor"] as? Int)
            // Then the next click skips the empty hour and reads the hour that holds events
            let second = await fixture.get("/api/events?q=app:com.window.app&window=3600&before=\(cursor)").json
            #expect(names(second) == ["call twoHours()"])
            let third = await fixture.get("/api/events?q=app:com.window.app&window=3600&before=\(try #require(second["nextCursor"] as? Int))").json
            #expect(names(third) == ["call threeHours()"])
            #expect(third["nextCursor"] is NSNull)
            // A window is range-checked, and only pages back
            #expect(await fixture.get("/api/events?window=0").status == 400)
            #expect(await fixture.get("/api/events?window=3600&after=1").status == 400)
        }
    }

    /// Issue #27 item 4: the events of an app found by the name the console shows, by the end of its bundle ID, in
    /// any case, and of a reporter's app by the end of its bundle ID; a term naming nothing answers with the apps.
    @Test(arguments: HistoryBackend.allCases) func appTermsTakeWhatPeopleSee(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            let reported = EntitlementEvent(sequence: 1, timestamp: Date(), sessionID: UUID(), deviceID: "box-7",
                app: AppIdentity(bundleID: "org.living.room.Box", teamID: "L"), requestorID: "REF30", mvpdID: nil,
                kind: .apiCall(name: "checkAuthentication", arguments: [:]))
            try await fixture.start("news-ios")
            try await fixture.console.history.append([reported])
            try await fixture.waitUntilRecorded(atLeast: 2)
            func bundleIDs(_ q: String) async -> Set<String> {
                let page = await fixture.get("/api/events?limit=500&q=" + TestHTTPClient.escape(q)).json
                return Set((page["events"] as? [[String: Any]] ?? []).compactMap { (($0["event"] as? [String: Any])?["app"] as? [String: Any])?["bundleID"] as? String })
            }
            let full = await bundleIDs("app:com.example.news.ios")
            #expect(full == ["com.example.news.ios"])
            for written in [#"app:"News""#, "app:news", "app:news.ios", "app:NEWS.IOS"] {
                #expect(await bundleIDs(written) == full, "\(written)")
            }
            #expect(await bundleIDs("app:room.box") == ["org.living.room.Box"])
            #expect(!(await bundleIDs("-app:news.ios")).contains("com.example.news.ios"))
            let nothing = await fixture.get("/api/events?q=" + TestHTTPClient.escape("app:weather"))  // a name, not a bundle ID
            #expect(nothing.status == 400)
            #expect(nothing.json["error"] as? String == "invalid_filter")
            #expect((nothing.json["message"] as? String)?.contains("names no app the console knows") == true, "\(nothing.text)")
            #expect((nothing.json["detail"] as? String)?.contains("org.living.room.Box") == true, "\(nothing.text)")
        }
    }
}
