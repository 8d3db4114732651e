import Foundation
import PassBackend
import Testing

/// The console's sign-in (the card's form, which submits the page the app's web view shows) works with every MVPD
/// page shape of the demo (spec §5.2.3): the News app's picker offers Optimum (SAML POST, `j_username`, *Resume*),
/// Spectrum (OAuth, `IDToken1`, meta refresh) and DISH (SAML redirect), and names each shape.
@Suite(.serialized)
struct ConsoleMVPDShapeTests {
    static let users = ["Cablevision": ("alice", "alice123"), "Spectrum": ("bob", "bob123"), "Dish": ("carol", "carol123")]

    @Test(arguments: ["Cablevision", "Spectrum", "Dish"])
    func theCardSignsInWithEachMVPDAndItsPickerNamesTheShape(mvpd: String) async throws {
        try await ConsoleFixture.with { fixture in
            let (user, password) = try #require(Self.users[mvpd])
            try await fixture.signIn(mvpd: mvpd, user: user, password: password)
            #expect(fixture.backend.sessions.map(\.mvpdID) == [mvpd])
            let app = try await fixture.app("news-ios")
            let choices = try #require(app["mvpds"] as? [[String: Any]])
            let shape = try #require(choices.first { $0["id"] as? String == mvpd }?["signIn"] as? String)
            let flow = fixture.backend.configuration.mvpds.first { $0.id == mvpd }?.loginPage.flow
            #expect(shape.hasPrefix(["samlRedirect": "SAML redirect", "samlPost": "SAML POST", "oauth": "OAuth"][flow?.rawValue ?? ""] ?? "?"))
        }
    }
}
