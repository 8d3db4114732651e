import Foundation
import HistoryTestSupport
import Testing

/// The clear dialog says what will really happen (issue #27 item 5): which apps lose their sign-in, and which one
/// will copy another Programmer's sign-in straight back, so the clear does not sign it out.
@Suite(.serialized)
struct ClearEffectsAPITests {
    static let team = "phone/team:TEAM1234"

    @Test func theDryRunNamesWhoLosesTheSignInAndWhoCopiesOneStraightBack() async throws {
        try await ConsoleFixture.with { fixture in
            // Given News signed in with Dish, and Sports One holding a copy of it (Dish signs in once for all)
            try await fixture.signIn("news-ios", mvpd: "Dish", user: "carol", password: "carol123")
            try await fixture.start("sports-ios")
            try await fixture.call("sports-ios", "checkAuthentication")
            try await fixture.waitForApp("sports-ios") { $0["authenticated"] as? Bool == true }
            // When the operator previews clearing Sports One's Programmer only
            let sportsOnly = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)","requestorID":"SPORTS1","dryRun":true}"#)
            #expect(sportsOnly.status == 200, "\(sportsOnly.text)")
            let effects = sportsOnly.json["effects"] as? [String] ?? []
            // Then the dialog says Sports One copies News's sign-in straight back
            let sports = "Sports"
            #expect(effects.contains { $0.hasPrefix("\(sports) stays signed in: its next checkAuthentication copies REF30's Dish sign-in straight back") },
                "\(effects)")
            // When it previews clearing everything
            let all = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)","dryRun":true}"#)
            let allEffects = all.json["effects"] as? [String] ?? []
            // Then both apps lose their sign-in
            let news = "News"
            #expect(allEffects.contains { $0.hasPrefix("\(news) loses its Dish sign-in") }, "\(allEffects)")
            #expect(allEffects.contains { $0.hasPrefix("\(sports) loses its Dish sign-in") }, "\(allEffects)")
            // And the clear itself answers the same
            let cleared = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(Self.team)","requestorID":"SPORTS1"}"#)
            #expect(cleared.json["effects"] as? [String] == effects)
        }
    }
}
