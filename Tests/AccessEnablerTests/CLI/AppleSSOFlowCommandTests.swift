import AccessEnabler
import Foundation
import PassTestSupport
import Testing

/// `passconsole flow --apple-sso pick:MVPD|other|cancel|none`, run as the built binary: the device's Apple TV Provider,
/// each cookbook flow one command printing its callbacks as JSON lines (issue #17 B.1, B.7).
@Suite(.serialized) struct AppleSSOFlowCommandTests {
    /// The callback names of a run, tracking left out; `status(ID)` for advanced statuses.
    static func steps(_ result: FlowCLI.Result) -> [String] {
        result.lines.compactMap { line in
            guard let name = line["callback"] as? String, name != "sendTrackingData" else { return nil }
            if name == "status" { return "status(\((line["statusDictionary"] as? [String: String])?["errorId"] ?? "?"))" }
            if name == "setAuthenticationStatus" { return "setAuthenticationStatus(\(line["status"] as? Int ?? -1))" }
            return name
        }
    }

    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: EntitlementProtocol.allCases)
    func pickLogoutAndTheNextLaunchAreOneCommandEach(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let cli = FlowCLI(fixture: fixture, wire: wire)
            let login = try await cli.run("login", "--apple-sso", "pick:Spectrum", "--user", "bob", "--password", "bob123")
            #expect(login.status == 0, "\(login)")
            #expect(Self.steps(login) == ["setRequestorComplete", "presentTvProviderDialog", "setAuthenticationStatus(1)"])
            let logout = try await cli.run("logout")
            #expect(logout.status == 0, "\(logout)")
            #expect(Self.steps(logout) == ["setRequestorComplete", "status(VSA203)", "setAuthenticationStatus(0)"])
            // The device keeps its TV provider: the next launch signs in again without being told how
            let again = try await cli.run("login")
            #expect(again.status == 0, "\(again)")
            #expect(Self.steps(again) == ["setRequestorComplete", "presentTvProviderDialog", "setAuthenticationStatus(1)"])
        }
    }

    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: EntitlementProtocol.allCases)
    func otherCancelAndNoneEachPrintTheirCallbacks(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let cli = FlowCLI(fixture: fixture, wire: wire)
            let other = try await cli.run(
                "login", "--apple-sso", "other", "--mvpd", "Dish", "--user", "carol", "--password", "carol123")
            #expect(other.status == 0, "\(other)")
            #expect(Self.steps(other) == [
                "setRequestorComplete", "presentTvProviderDialog", "dismissTvProviderDialog", "status(N003)",
                "displayProviderDialog", "navigateToUrl", "setAuthenticationStatus(1)",
            ])
            // Signed in with Dish now: log out, so the next getAuthentication opens the dialog again
            let logout = try await cli.run("logout")
            #expect(logout.status == 0, "\(logout)")
            let cancelRun = try await cli.run("login", "--apple-sso", "cancel")
            #expect(cancelRun.status != 0, "\(cancelRun)")
            #expect(Self.steps(cancelRun) == [
                "setRequestorComplete", "presentTvProviderDialog", "dismissTvProviderDialog", "setAuthenticationStatus(0)",
                "status(N005)",
            ])
            let none = try await cli.run("login", "--apple-sso", "none", "--mvpd", "Dish", "--user", "carol", "--password", "carol123")
            #expect(none.status == 0, "\(none)")
            #expect(Array(Self.steps(none).prefix(4)) == [
                "setRequestorComplete", "presentTvProviderDialog", "dismissTvProviderDialog", "displayProviderDialog",
            ])
            let bad = try await cli.run("login", "--apple-sso", "maybe")
            #expect(bad.status != 0)
            #expect(bad.stderr.contains("pick:MVPD, other, cancel, none or denied"), "\(bad)")
        }
    }
}

/// `passconsole flow --handle-svc` against an MVPD that requires SFSafariViewController and refuses embedded web views.
@Suite(.serialized) struct SafariFlowCommandTests {
    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage))
    func handleSVCSignsInThroughSafariAndWithoutItTheMVPDRefusesTheWebView() async throws {
        try await SDKFixture.with { fixture in
            fixture.service.faults = SafariViewControllerTests.svcDish
            let cli = FlowCLI(fixture: fixture)
            let refused = try await cli.run("login", "--mvpd", "Dish", "--user", "carol", "--password", "carol123")
            #expect(refused.status != 0, "\(refused)")
            #expect(refused.errors.contains { $0.contains("embedded browser") }, "\(refused)")
            let login = try await cli.run(
                "login", "--handle-svc", "--mvpd", "Dish", "--user", "carol", "--password", "carol123")
            #expect(login.status == 0, "\(login)")
            let navigation = try #require(login.callbacks("navigateToUrl").first, "\(login)")
            #expect(navigation["useSVC"] as? Bool == true)
            #expect((navigation["url"] as? String)?.contains("redirect_url=adbe.com.example.news.ios") == true)
        }
    }
}
