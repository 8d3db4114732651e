import AccessEnabler
import Foundation
import PassBackend
import PassProtocol
import PassSimulator
import PassTestSupport
import Testing

/// Each demo MVPD signs in through the page shape it is configured with (spec §5.2.2–5.2.3, `Config/demo.json`
/// `loginPage`): the SAML redirect shape (DISH), the SAML HTTP-POST binding with `j_username`/`j_password` and a
/// *Resume* page (Optimum), OAuth with `IDToken1`/`IDToken2` and a meta-refresh page (Spectrum), the POST binding with
/// `UserName`/`UserPassword` and no page in between (Rogers, Kids Network only). The real SDK walks
/// each through the headless web view: getAuthentication → picker → navigateToUrl → sign-in →
/// setAuthenticationStatus(1) → getAuthorization → a media token the backend verifies; on both protocols (REST API v2:
/// the session's authenticate URL leads to the same pages).
@Suite struct MVPDLoginShapeTests {
    struct Shape: Sendable, CustomTestStringConvertible {
        var mvpd: String
        var flow: MVPDLoginPage.Flow
        var username: String
        var password: String
        var resource: String
        var requestor = "REF30"
        var testDescription: String { "\(mvpd) (\(flow.rawValue))" }
    }

    static let shapes = [
        Shape(mvpd: "Dish", flow: .samlRedirect, username: "carol", password: "carol123", resource: "movies"),
        Shape(mvpd: "Cablevision", flow: .samlPost, username: "alice", password: "alice123", resource: "sports"),
        Shape(mvpd: "Spectrum", flow: .oauth, username: "bob", password: "bob123", resource: "news"),
        Shape(mvpd: "Rogers", flow: .samlPost, username: "erin", password: "erin123", resource: "kids", requestor: "KIDSNET"),
    ]

    @Test func theDemoShowsEveryFlowAndTheseTestsCoverEachDemoMVPD() throws {
        let configuration = try BackendConfiguration.load(path: SDKFixture.configPath)
        #expect(Set(configuration.mvpds.map(\.loginPage.flow)) == Set(MVPDLoginPage.Flow.allCases))
        #expect(Set(configuration.mvpds.map(\.id)) == Set(Self.shapes.map(\.mvpd)))
        for shape in Self.shapes {
            #expect(configuration.mvpds.first { $0.id == shape.mvpd }?.loginPage.flow == shape.flow)
        }
        #expect(Set(configuration.mvpds.map(\.loginPage.intermediate)) == Set(MVPDLoginPage.Intermediate.allCases))
    }

    @Test(arguments: shapes, EntitlementProtocol.allCases)
    func theSDKSignsInAndGetsAMediaToken(_ shape: Shape, _ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire, requestor: shape.requestor)
            await app.start(shape.requestor, base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            app.enabler.setSelectedProvider(shape.mvpd)
            await app.settle()
            let url = try #require(app.delegate.lastURL, "navigateToUrl expected")
            let webView = HeadlessWebView()
            let end = try await webView.signIn(at: url, username: shape.username, password: shape.password)
            #expect(end == PassConstants.ADOBEPASS_REDIRECT_URL)
            app.enabler.handleExternalURL(end)
            await app.settle()
            #expect(app.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: ""))
            #expect(fixture.service.sessions.map(\.mvpdID) == [shape.mvpd])

            app.enabler.getAuthorization(shape.resource)
            await app.settle()
            let token = try #require(app.delegate.lastToken, "setToken expected, got \(app.delegate.names)")
            let verdict = try await TestHTTPClient(baseURL: fixture.baseURL).post(
                "/verify", form: [("token", token), ("resource", shape.resource)])
            #expect(verdict.status == 200, "\(verdict.text)")
        }
    }

    /// A web view without JavaScript stops on each auto-posting page and a person presses its `<noscript>` button.
    @Test(arguments: EntitlementProtocol.allCases)
    func withJavaScriptOffTheNoscriptButtonsCarryTheSAMLPostSignIn(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            app.enabler.setSelectedProvider("Cablevision")
            await app.settle()
            let url = try #require(app.delegate.lastURL)
            let webView = HeadlessWebView(javaScriptEnabled: false)
            // The first page is the SP's relay, held: a browser without JavaScript shows it.
            guard case .page(let relay) = try await webView.load(url) else { Issue.record("expected the relay page"); return }
            #expect(relay.html.contains("<noscript>"))
            #expect(relay.forms.first?.fields["SAMLRequest"] != nil)
            let end = try await webView.signIn(at: url, username: "alice", password: "alice123")
            app.enabler.handleExternalURL(end)
            await app.settle()
            #expect(app.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: ""))
        }
    }

    /// A wrong password stops on the MVPD's form in its own field names, with its message; nothing is signed in.
    @Test(arguments: shapes, EntitlementProtocol.allCases)
    func aWrongPasswordStopsOnTheMVPDsFormWithItsMessage(_ shape: Shape, _ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire, requestor: shape.requestor)
            await app.start(shape.requestor, base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            app.enabler.setSelectedProvider(shape.mvpd)
            await app.settle()
            let url = try #require(app.delegate.lastURL)
            do {
                _ = try await HeadlessWebView().signIn(at: url, username: shape.username, password: "wrong")
                Issue.record("signed in with a wrong password")
            } catch let error as HeadlessWebView.Failure {
                #expect(error.message.contains("The username or password is not correct"), "\(error.message)")
            }
            #expect(fixture.service.sessions.isEmpty)
        }
    }

    /// Cancel on the MVPD's page returns to the app with `user_cancelled`, through the SP's OAuth return for OAuth.
    @Test(arguments: shapes, EntitlementProtocol.allCases)
    func cancelReturnsToTheAppInEveryShape(_ shape: Shape, _ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire, requestor: shape.requestor)
            await app.start(shape.requestor, base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            app.enabler.setSelectedProvider(shape.mvpd)
            await app.settle()
            let url = try #require(app.delegate.lastURL)
            let end = try await HeadlessWebView().cancelSignIn(at: url)
            #expect(end == "\(PassConstants.ADOBEPASS_REDIRECT_URL)?error=user_cancelled")
            #expect(fixture.service.sessions.isEmpty)
        }
    }
}
