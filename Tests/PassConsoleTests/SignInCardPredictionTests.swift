import AccessEnabler
import Foundation
import HistoryTestSupport
import PassBackend
import PassTestSupport
import Testing

/// The Flows card's "Signed in" is the SDK's next `checkAuthentication` answer, judged by the rules the app's SDK
/// holds (the configuration of its last setRequestor) — not by the service's settings since (issue #27 item 1: a
/// fault turned on and reset left the card saying "Signed in" while three checkAuthentication calls answered 0).
@Suite(.serialized)
struct SignInCardPredictionTests {
    /// Whether the card says the SDK counts a sign-in: "Signed in", or "Signed in on this device only" (the SDK answers
    /// 1, the service will refuse the token).
    static func cardSaysSignedIn(_ fixture: ConsoleFixture, _ app: String) async throws -> Bool {
        let view = try await fixture.app(app)
        return ["signedIn", "deviceOnly"].contains(((view["signIn"] as? [String: Any])?["state"] as? String) ?? "")
    }

    /// Calls checkAuthentication and returns its answer (status 1 or 0), read from the app's newest callbacks.
    static func checkAuthentication(_ fixture: ConsoleFixture, _ app: String) async throws -> Bool {
        func lines() async throws -> [[String: Any]] { (try await fixture.app(app))["callbacks"] as? [[String: Any]] ?? [] }
        func key(_ line: [String: Any]) -> String { "\(line["name"] ?? "")|\(line["at"] ?? "")|\(line["summary"] ?? "")" }
        let newestBefore = try await lines().first.map(key)
        try await fixture.call(app, "checkAuthentication")
        var answer: Bool?
        try await fixture.waitForApp(app) { view in
            let now = view["callbacks"] as? [[String: Any]] ?? []
            let fresh = now.prefix { key($0) != newestBefore }
            guard let line = fresh.first(where: { $0["name"] as? String == "setAuthenticationStatus" }) else { return false }
            answer = (line["summary"] as? String)?.hasPrefix("status 1") == true
            return true
        }
        return try #require(answer as Bool?, "checkAuthentication never answered")
    }

    static func restart(_ fixture: ConsoleFixture, _ app: String) async throws {
        if (try await fixture.app(app))["running"] as? Bool == true {
            #expect(await fixture.post("/api/apps/\(app)/stop").status == 200)
            try await fixture.waitForApp(app) { $0["running"] as? Bool == false }
        }
        try await fixture.start(app)
    }

    @Test func afterAServiceSettingChangesBackTheCardSaysWhatTheSDKWillAnswer() async throws {
        try await ConsoleFixture.with { fixture in
            // Given Dish switched to authentication per requestor on the service when Sports One starts (its SDK
            // receives Dish as per-requestor), then News signing in with Dish
            fixture.backend.faults.mvpdOverrides["Dish"] = MVPDOverride(authPerRequestor: true)
            try await fixture.start("sports-ios")
            try await fixture.signIn("news-ios", mvpd: "Dish", user: "carol", password: "carol123")
            // When the service's settings are reset: the service would now take News's token for Sports One, but
            // Sports One's SDK judges by what its setRequestor received and copies nothing
            fixture.backend.faults = fixture.backend.configuration.faults
            // Then the card says what the SDK answers — not signed in — three times over
            for _ in 0..<3 {
                #expect(try await !Self.cardSaysSignedIn(fixture, "sports-ios"))
                #expect(try await !Self.checkAuthentication(fixture, "sports-ios"))
            }
            // And after its next setRequestor (the SDK receives the settings as they are now) both say signed in
            try await Self.restart(fixture, "sports-ios")
            #expect(try await Self.cardSaysSignedIn(fixture, "sports-ios"))
            #expect(try await Self.checkAuthentication(fixture, "sports-ios"))
        }
    }

    /// A property over random sequences of service settings, sign-ins, logouts and app restarts: after each step the
    /// card's "Signed in" is the SDK's next answer.
    @Test(arguments: [UInt64(27), 101, 2026, 7, 12]) func theCardPredictsTheNextAnswerOverRandomSequences(seed: UInt64) async throws {
        try await ConsoleFixture.with { fixture in
            var random = SeededRandom(seed: seed)
            try await fixture.start("news-ios")
            try await fixture.start("sports-ios")
            var newsSignedIn = false
            for step in 0..<12 {
                var did = ""
                switch Int.random(in: 0..<5, using: &random) {
                case 0:
                    fixture.backend.faults.mvpdOverrides["Dish"] = MVPDOverride(authPerRequestor: true)
                    did = "Dish per requestor on"
                case 1:
                    fixture.backend.faults = fixture.backend.configuration.faults
                    did = "faults reset"
                case 2 where !newsSignedIn:
                    try await Self.restart(fixture, "news-ios")
                    try await fixture.signIn("news-ios", mvpd: "Dish", user: "carol", password: "carol123")
                    newsSignedIn = true
                    did = "News signed in with Dish"
                case 2:
                    try await fixture.call("news-ios", "logout")
                    try await fixture.waitForApp("news-ios") { $0["authenticated"] as? Bool == false }
                    newsSignedIn = false
                    did = "News logged out"
                default:
                    try await Self.restart(fixture, "sports-ios")
                    did = "Sports One restarted (setRequestor)"
                }
                let card = try await Self.cardSaysSignedIn(fixture, "sports-ios")
                let answer = try await Self.checkAuthentication(fixture, "sports-ios")
                #expect(card == answer, "seed \(seed), step \(step) (\(did)): the card says \(card ? "signed in" : "not signed in"), the SDK answered \(answer ? 1 : 0)")
            }
        }
    }
}
