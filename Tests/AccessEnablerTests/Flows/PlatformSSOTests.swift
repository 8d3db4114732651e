import AccessEnabler
import Foundation
import PassProtocol
import PassSimulator
import Testing

/// Apple SSO (cookbook): the system TV-provider picker, sign-in without a login page, the ways out, and logout's
/// VSA203 reminder.
@Suite struct PlatformSSOTests {
    func app(_ fixture: SDKFixture, _ choice: SimulatedPlatformServices.Choice) throws -> TestApp {
        try fixture.app(configure: {
            $0.platformServices = SimulatedPlatformServices(backend: URL(string: fixture.baseURL)!, choice: choice)
        })
    }

    @Test func signInThroughThePlatformNeedsNoLoginPage() async throws {
        try await SDKFixture.with { fixture in
            let app = try app(fixture, .signIn(mvpdID: "Spectrum", username: "bob", password: "bob123"))
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
            // Logout reminds the user to sign out of the TV provider in Settings too
            app.enabler.logout()
            await app.settle()
            #expect(app.delegate.statuses.contains { $0["errorId"] == "VSA203" })
        }
    }

    @Test func otherProviderFallsBackToTheSDKPicker() async throws {
        try await SDKFixture.with { fixture in
            let app = try app(fixture, .otherProvider)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(app.delegate.main.map(\.name) == ["setRequestorComplete", "presentTvProviderDialog", "dismissTvProviderDialog", "displayProviderDialog"])
            #expect(app.delegate.statuses.contains { $0["errorId"] == "N003" })
            // and the regular login still works from there
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            #expect(app.delegate.lastURL?.contains("mso_id=Dish") == true)
        }
    }

    @Test func providerWithoutSSOSupportGivesN004AndThePicker() async throws {
        try await SDKFixture.with { fixture in
            let app = try app(fixture, .signIn(mvpdID: "Dish", username: "carol", password: "carol123"))
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(app.delegate.statuses.contains { $0["errorId"] == "N004" })
            #expect(app.delegate.main.last?.name == "displayProviderDialog")
        }
    }

    @Test func cancelInTheSystemPickerCancelsAuthentication() async throws {
        try await SDKFixture.with { fixture in
            let app = try app(fixture, .cancel)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(app.delegate.main.suffix(2) == [.dismissTvProviderDialog, .setAuthenticationStatus(status: 0, errorCode: ErrorCode.PROVIDER_NOT_SELECTED_ERROR)])
        }
    }

    @Test func requestorWithoutSSOMvpdsUsesTheRegularPicker() async throws {
        try await SDKFixture.with { fixture in
            let app = try app(fixture, .signIn(mvpdID: "Spectrum", username: "bob", password: "bob123"))
            await app.start("SPORTS1", base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            #expect(!app.delegate.names.contains("presentTvProviderDialog"))
            #expect(app.delegate.main.last?.name == "displayProviderDialog")
        }
    }
}
