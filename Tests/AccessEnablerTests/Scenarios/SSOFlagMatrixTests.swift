import AccessEnabler
import Foundation
import PassBackend
import PassProtocol
import Testing

/// Issue #17 B.0: single sign-on between two Programmers for every combination of the MVPD flags
/// (`authPerRequestor` × `passiveAuthn`), through the real SDK against the real backend.
///
/// Two apps of one team and one bundle-ID prefix (shared storage, same device ID), Programmers `NEWS` and `SPORTS`
/// integrating the same four MVPDs. The user signs in once in the News app; then the Sports app starts and asks for
/// an authorization without any login page. What happens is the seeds' rule (seed 002 "Authentication Token",
/// spec §8.4, §8.5):
///
/// | authPerRequestor | passiveAuthn | Sports app |
/// | --- | --- | --- |
/// | false | either | the SDK copies News's token (silent SSO) and the backend accepts it |
/// | true | true | passive authentication gets a token of SPORTS's own during setRequestor |
/// | true | false | not signed in: the picker, then a sign-in of its own |
///
/// In every row `checkAuthentication` and the authorization agree: the SDK never answers 1 for a token the backend
/// then refuses (the bug of the issue, where DISH tokens were copied and refused in a loop).
@Suite struct SSOFlagMatrixTests {
    struct Flags: Sendable, CustomTestStringConvertible {
        var authPerRequestor: Bool
        var passiveAuthn: Bool
        var mvpd: String { "MVPD_\(authPerRequestor ? "PerRequestor" : "Shared")_\(passiveAuthn ? "Passive" : "NoPassive")" }
        var testDescription: String { "authPerRequestor \(authPerRequestor), passiveAuthn \(passiveAuthn)" }
        /// What the Sports app gets without a login page.
        var expectsSilentSignIn: Bool { !authPerRequestor || passiveAuthn }
    }

    static let combinations = [false, true].flatMap { perRequestor in
        [false, true].map { Flags(authPerRequestor: perRequestor, passiveAuthn: $0) }
    }

    static let configuration: BackendConfiguration = {
        let mvpds = combinations.map {
            MVPD(id: $0.mvpd, displayName: $0.mvpd, authPerRequestor: $0.authPerRequestor, passiveAuthn: $0.passiveAuthn)
        }
        return BackendConfiguration(
            programmers: [
                Programmer(id: "NEWS", name: "News", mvpds: mvpds.map(\.id)),
                Programmer(id: "SPORTS", name: "Sports", mvpds: mvpds.map(\.id)),
            ],
            mvpds: mvpds, resources: [Resource(id: "news", title: "News"), Resource(id: "sports", title: "Sports")],
            subscribers: mvpds.map { Subscriber(mvpd: $0.id, username: "user", password: "secret", entitlements: ["*"]) })
    }()

    func storage(_ app: TestApp) throws -> TokenStorage {
        try JSONDecoder().decode(TokenStorage.self, from: try #require(try app.configuration.storage.read()))
    }

    /// Asks `app` for an authorization of `resource` and returns the media token or the failure's error code.
    func authorize(_ app: TestApp, _ resource: String) async -> (token: String?, failure: String?, names: [String]) {
        app.delegate.clear()
        app.enabler.getAuthorization(resource)
        await app.settle()
        for callback in app.delegate.main.reversed() {
            if case .setToken(let token, resource) = callback { return (token, nil, app.delegate.names) }
            if case .tokenRequestFailed(resource, let code, let description) = callback {
                return (nil, "\(code) \(description ?? "")", app.delegate.names)
            }
        }
        return (nil, nil, app.delegate.names)
    }

    @Test(arguments: combinations)
    func aSignInInOneProgrammersAppReachesTheOtherByTheMVPDsFlags(_ flags: Flags) async throws {
        try await SDKFixture.with(configuration: Self.configuration) { fixture in
            let news = try fixture.simulatedApp(bundleID: "com.example.apps.news", team: "TEAM1")
            let sports = try fixture.simulatedApp(bundleID: "com.example.apps.sports", team: "TEAM1")
            #expect(news.configuration.deviceID == sports.configuration.deviceID)
            await news.start("NEWS", base: fixture.serviceProvider)
            try await news.login(mvpd: flags.mvpd, username: "user", password: "secret")
            #expect(await authorize(news, "news").token != nil)

            // The Sports app starts (passive authentication, if any, runs in setRequestor) and checks
            await sports.start("SPORTS", base: fixture.serviceProvider)
            let checked = await sports.isAuthenticated()
            #expect(checked == flags.expectsSilentSignIn)
            let first = await authorize(sports, "sports")
            if flags.expectsSilentSignIn {
                // Signed in without a login page, and the backend honours the token the SDK counted
                #expect(first.token != nil, "\(first.failure ?? "no callback")")
                #expect(!first.names.contains("displayProviderDialog") && !first.names.contains("navigateToUrl"))
                let token = try #require(try storage(sports).bucket(requestor: "SPORTS", mvpd: flags.mvpd)?.authnToken)
                let issuedTo = try SignedToken<AuthNToken>.parse(token).body.requestorID
                // Shared MVPD: News's own token, copied; per-requestor MVPD: a token of SPORTS's own (passive)
                #expect(issuedTo == (flags.authPerRequestor ? "SPORTS" : "NEWS"))
                // No loop: the next check and authorization agree, and the storage keeps the token
                #expect(await sports.isAuthenticated())
                #expect(await authorize(sports, "sports").token != nil)
                #expect(try storage(sports).bucket(requestor: "SPORTS", mvpd: flags.mvpd)?.authnToken == token)
            } else {
                // Not signed in: the picker asks, and the user signs in for Sports too
                #expect(first.token == nil)
                #expect(first.names.contains("displayProviderDialog"))
                #expect(try storage(sports).bucket(requestor: "SPORTS", mvpd: flags.mvpd)?.authnToken == nil)
                sports.enabler.setSelectedProvider(nil)
                await sports.settle()
                try await sports.login(mvpd: flags.mvpd, username: "user", password: "secret")
                #expect(await authorize(sports, "sports").token != nil)
            }
            // Either way News stays signed in
            #expect(await news.isAuthenticated())
            #expect(await authorize(news, "news").token != nil)
        }
    }

    /// The one way a copied token is still refused: its MVPD switches to authentication per requestor while the
    /// copy is stored. The backend refuses it (token_requestor_mismatch); the SDK clears it and does not copy it
    /// back at the next check (no loop); the next setRequestor reads the new flag, and passive authentication gets the
    /// app a token of its own.
    @Test func aCopyIsRefusedOnceItsMVPDSwitchesToAuthenticationPerRequestorAndIsNotCopiedBack() async throws {
        try await SDKFixture.with(configuration: Self.configuration) { fixture in
            let shared = Self.combinations.first { !$0.authPerRequestor && $0.passiveAuthn }!.mvpd
            let news = try fixture.simulatedApp(bundleID: "com.example.apps.news", team: "TEAM1")
            let sports = try fixture.simulatedApp(bundleID: "com.example.apps.sports", team: "TEAM1")
            await news.start("NEWS", base: fixture.serviceProvider)
            try await news.login(mvpd: shared, username: "user", password: "secret")
            await sports.start("SPORTS", base: fixture.serviceProvider)
            #expect(await authorize(sports, "sports").token != nil)

            fixture.service.faults.mvpdOverrides[shared] = MVPDOverride(authPerRequestor: true)
            // A new resource needs an authorization call: the copy is presented and refused
            let refused = await authorize(sports, "news")
            #expect(refused.failure?.hasPrefix(ErrorCode.userNotAuthenticated.rawValue) == true, "\(refused)")
            #expect(refused.failure?.contains("The token was issued to Programmer NEWS, not to SPORTS.") == true)
            // The SDK cleared the copy and does not copy it back
            #expect(await sports.isAuthenticated() == false)
            #expect(await sports.isAuthenticated() == false)
            #expect(try storage(sports).bucket(requestor: "SPORTS", mvpd: shared)?.authnToken == nil)
            // News, whose token it is, keeps it
            #expect(await authorize(news, "news").token != nil)
            // Sports restarted: its setRequestor reads the new flag, and passive authentication gets it a token of its own
            let restarted = try fixture.simulatedApp(bundleID: "com.example.apps.sports", team: "TEAM1")
            await restarted.start("SPORTS", base: fixture.serviceProvider)
            #expect(await authorize(restarted, "news").token != nil)
            let own = try #require(try storage(restarted).bucket(requestor: "SPORTS", mvpd: shared)?.authnToken)
            #expect(try SignedToken<AuthNToken>.parse(own).body.requestorID == "SPORTS")
        }
    }
}
