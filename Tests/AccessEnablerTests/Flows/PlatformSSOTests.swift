import AccessEnabler
import Foundation
import PassProtocol
import PassSimulator
import Testing

/// Apple SSO (cookbook): the system TV-provider picker, sign-in without a login page, the ways out, and logout's
/// VSA203 reminder; on both protocols (REST API v2: partner single sign-on).
@Suite struct PlatformSSOTests {
    func app(_ fixture: SDKFixture, _ choice: SimulatedPlatformServices.Choice, _ wire: EntitlementProtocol, requestor: String = "REF30") throws -> TestApp {
        try fixture.app(wire: wire, requestor: requestor, configure: {
            $0.platformServices = SimulatedPlatformServices(backend: URL(string: fixture.baseURL)!, choice: choice)
        })
    }

    @Test(arguments: EntitlementProtocol.allCases) func signInThroughThePlatformNeedsNoLoginPage(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try app(fixture, .signIn(mvpdID: "Spectrum", username: "bob", password: "bob123"), wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(app.delegate.main == [
                .setRequestorComplete(status: 1), .presentTvProviderDialog, .setAuthenticationStatus(status: 1, errorCode: ""),
            ])
            #expect(!app.delegate.names.contains("navigateToUrl"))
            app.enabler.getMetadata(["opCode": "3", "user_metadata_name": "tokenSource"])
            await app.settle()
            #expect(app.delegate.main.last == .setMetadataStatus(metadata: "apple", encrypted: false, key: 3, arguments: ["opCode": "3", "user_metadata_name": "tokenSource"]))
            if wire == .restV2 {
                // Partner single sign-on made an appleSSO profile; its AP-Partner-Framework-Status is kept for its calls
                let kept = try #require(try app.v2State().requestors["REF30"])
                #expect(kept.profile?.type == "appleSSO" && kept.profile?.mvpd == "Spectrum")
                let status = try #require(kept.partnerFrameworkStatus.flatMap(V2.PartnerFrameworkStatus.decode))
                #expect(status.frameworkProviderInfo?.id == "Spectrum")
                // The provider's expiry as the platform gave it (Spectrum's authentication TTL from now)
                let expires = try #require(status.frameworkProviderInfo?.expirationDate.flatMap(EpochMilliseconds.date))
                let ttl = try #require(fixture.service.mvpd("Spectrum")?.authnTTL)
                #expect(abs(expires.timeIntervalSince(fixture.service.now()) - TimeInterval(ttl)) < 120)
            }
            // Logout reminds the user to sign out of the TV provider in Settings too
            app.enabler.logout()
            await app.settle()
            #expect(app.delegate.statuses.contains { $0["errorId"] == "VSA203" })
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func otherProviderFallsBackToTheSDKPicker(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try app(fixture, .otherProvider, wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(app.delegate.main.map(\.name) == ["setRequestorComplete", "presentTvProviderDialog", "dismissTvProviderDialog", "displayProviderDialog"])
            #expect(app.delegate.statuses.contains { $0["errorId"] == "N003" })
            // and the regular login still works from there
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            #expect(app.delegate.main.last?.name == "navigateToUrl")
            #expect(await app.enabler.snapshot().authentication == .awaitingLogin(mvpd: "Dish"))
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func providerWithoutSSOSupportGivesN004AndThePicker(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try app(fixture, .signIn(mvpdID: "Dish", username: "carol", password: "carol123"), wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(app.delegate.statuses.contains { $0["errorId"] == "N004" })
            #expect(app.delegate.main.last?.name == "displayProviderDialog")
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func cancelInTheSystemPickerCancelsAuthentication(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try app(fixture, .cancel, wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(app.delegate.main.suffix(2) == [.dismissTvProviderDialog, .setAuthenticationStatus(status: 0, errorCode: ErrorCode.PROVIDER_NOT_SELECTED_ERROR)])
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func requestorWithoutSSOMvpdsUsesTheRegularPicker(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try app(fixture, .signIn(mvpdID: "Spectrum", username: "bob", password: "bob123"), wire, requestor: "SPORTS1")
            await app.start("SPORTS1", base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(!app.delegate.names.contains("presentTvProviderDialog"))
            #expect(app.delegate.main.last?.name == "displayProviderDialog")
        }
    }

    /// A platform whose provider information has expired (the partner framework's expirationDate is past): the service
    /// falls back to the basic flow (`pfs_fallback`), and the SDK opens the MVPD's login page with that session.
    @Test func onV2AnExpiredPlatformSignInFallsBackToTheMVPDsLoginPage() async throws {
        struct Expired: PlatformServices {
            let inner: SimulatedPlatformServices
            func requestSignIn(mvpds: [MVPD]) async -> PlatformSignInResult {
                guard case .signedIn(let mvpd, let saml, _) = await inner.requestSignIn(mvpds: mvpds) else { return .failed("no sign-in") }
                return .signedIn(mvpdID: mvpd, samlResponse: saml, expires: Date(timeIntervalSince1970: 1_000_000))
            }
        }
        try await SDKFixture.with { fixture in
            let inner = SimulatedPlatformServices(backend: URL(string: fixture.baseURL)!, choice: .signIn(mvpdID: "Spectrum", username: "bob", password: "bob123"))
            let app = try fixture.app(wire: .restV2) { $0.platformServices = Expired(inner: inner) }
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(app.delegate.main.map(\.name) == ["setRequestorComplete", "presentTvProviderDialog", "navigateToUrl"])
            #expect(await app.enabler.snapshot().authentication == .awaitingLogin(mvpd: "Spectrum"))
            let end = try await app.webView.signIn(at: try #require(app.delegate.lastURL), username: "bob", password: "bob123")
            app.enabler.handleExternalURL(end)
            await app.settle()
            #expect(app.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: ""))
            #expect(try app.v2State().requestors["REF30"]?.profile?.type == "regular")
        }
    }
}
