import AccessEnabler
import Foundation
import Locking
import PassBackend
import PassProtocol
import PassSimulator
import PassStorage
import Testing

/// Issue #17 B.3: an MVPD that requires SFSafariViewController (`requiresSVC`, delivered as the MVPD's `useSVC` in
/// the requestor configuration) gets `navigateToUrl(_:useSVC: true)` and a login that returns to the app's custom
/// scheme (`adbe.<id>://adobe.com`), which `handleExternalURL` accepts and nothing else. The simulator plays the
/// SFSafariViewController: Safari's user agent and cookies, the custom-scheme redirect handed to `handleExternalURL`.
@Suite struct SafariViewControllerTests {
    /// Dish requires SFSafariViewController and its login page refuses embedded web views.
    static let svcDish = FaultSettings(
        mvpdOverrides: ["Dish": MVPDOverride(requiresSVC: true)], refuseEmbeddedBrowsers: ["Dish"])

    final class Recorder: Sendable {
        let callbacks = Mutex<[EntitlementCallback]>([])
        let failures = Mutex<[SimulatedApp.Failure]>([])
        var statuses: [Int] {
            callbacks.withLock { $0.compactMap { if case .setAuthenticationStatus(let s, _) = $0 { s } else { nil } } }
        }
        var navigations: [(url: String, useSVC: Bool?)] {
            callbacks.withLock { $0.compactMap { if case .navigateToUrl(let u, let svc) = $0 { (u, svc) } else { nil } } }
        }
    }

    func scriptedApp(_ fixture: SDKFixture, _ recorder: Recorder) throws -> SimulatedApp {
        try SimulatedApp(
            app: AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234", platform: .iOS), device: fixture.folder,
            serviceProvider: fixture.serviceProvider,
            player: .script(mvpd: "Dish", credentials: .init(username: "carol", password: "carol123"), endsLoginOnFailure: true),
            configure: { [service = fixture.service] in $0.now = { service.now() } },
            onCallback: { callback in recorder.callbacks.withLock { $0.append(callback) } },
            onFailure: { failure in recorder.failures.withLock { $0.append(failure) } })
    }

    func waitForStatus(_ recorder: Recorder) async throws {
        for _ in 0..<200 where recorder.statuses.isEmpty { try await Task.sleep(for: .milliseconds(25)) }
    }

    @Test func anAppThatHandlesSVCSignsInThroughSafariAndItsCustomScheme() async throws {
        try await SDKFixture.with { fixture in
            fixture.service.faults = Self.svcDish
            let recorder = Recorder()
            let app = try scriptedApp(fixture, recorder)
            // Given an app that presents SFSafariViewController itself (handleSVC)
            app.enabler.setOptions(["handleSVC": "true"])
            app.setRequestor("REF30")
            // When it signs in with Dish
            app.enabler.getAuthentication()
            try await waitForStatus(recorder)
            // Then the SDK asked for SFSafariViewController, with the app's custom scheme as the way back
            let navigation = try #require(recorder.navigations.last)
            #expect(navigation.useSVC == true)
            #expect(app.configuration.svcRedirectURL == "adbe.com.example.news.ios://adobe.com")
            let redirect = URLComponents(string: navigation.url)?.queryItems?.first { $0.name == "redirect_url" }?.value
            #expect(redirect == "adbe.com.example.news.ios://adobe.com")
            // And the login completed through Safari, never the app's embedded web view
            #expect(recorder.statuses == [1], "\(recorder.failures.withLock { $0 })")
            #expect(app.webView.requestCount == 0)
            #expect(fixture.service.sessions.contains { $0.mvpdID == "Dish" })
            // And the logout chain also runs in Safari and returns to the custom scheme
            app.expect(.logout)
            app.enabler.logout()
            for _ in 0..<200 where recorder.statuses.count < 2 { try await Task.sleep(for: .milliseconds(25)) }
            #expect(recorder.statuses == [1, 0], "\(recorder.failures.withLock { $0 })")
            let logout = try #require(recorder.navigations.last)
            #expect(logout.useSVC == true && logout.url.contains("redirect_url=adbe.com.example.news.ios"))
            #expect(!fixture.service.sessions.contains { $0.mvpdID == "Dish" })
        }
    }

    @Test func anAppWithoutHandleSVCShowsTheLoginInItsWebViewAndTheMVPDRefusesIt() async throws {
        try await SDKFixture.with { fixture in
            fixture.service.faults = Self.svcDish
            let recorder = Recorder()
            let app = try scriptedApp(fixture, recorder)
            // Given an app that does not set handleSVC: the SDK calls navigateToUrl(_:) (field problem #4)
            app.setRequestor("REF30")
            app.enabler.getAuthentication()
            try await waitForStatus(recorder)
            #expect(recorder.navigations.count == 1)
            #expect(recorder.navigations.last?.useSVC == nil, "the delegate got navigateToUrl(_:), not the useSVC form")
            // Then the MVPD refuses the embedded browser, and the login ends failed instead of hanging
            let failures = recorder.failures.withLock { $0 }
            #expect(failures.contains { if case .signInFailed(let m) = $0 { m.contains("embedded browser") } else { false } },
                "\(failures)")
            #expect(recorder.statuses == [0])
        }
    }

    @Test func handleExternalURLRefusesTheWrongSchemeForAnSVCLogin() async throws {
        try await SDKFixture.with { fixture in
            fixture.service.faults = Self.svcDish
            let app = try fixture.simulatedApp(bundleID: "com.example.news.ios", team: "TEAM1234")
            app.enabler.setOptions(["handleSVC": "true"])
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            guard case .navigateToUrl(let url, true)? = app.delegate.callbacks.last(where: { $0.name == "navigateToUrl" }) else {
                Issue.record("expected navigateToUrl(_:useSVC: true), got \(app.delegate.names)")
                return
            }
            // When the user signs in in Safari, which ends at the app's scheme, but the app hands the SDK adobepass://
            let end = try await HeadlessWebView().signIn(at: url, username: "carol", password: "carol123")
            #expect(end.hasPrefix("adbe.com.example.news.ios://adobe.com"))
            let events = app.enabler.events(replay: true)
            app.enabler.handleExternalURL(PassConstants.ADOBEPASS_REDIRECT_URL)
            await app.settle()
            // Then the SDK refuses it: no token fetched, status 0 with Generic Authentication Error, a named error
            #expect(app.delegate.main.last == .setAuthenticationStatus(status: 0, errorCode: ErrorCode.genericAuthentication.rawValue))
            #expect(await app.isAuthenticated() == false)
            let collector = Task { () -> String? in
                for await event in events {
                    if case .error(let code, let message) = event.kind, code == "redirect_mismatch" { return message }
                }
                return nil
            }
            let deadline = Task {
                try? await Task.sleep(for: .seconds(5))
                collector.cancel()
            }
            let refusal = await collector.value
            deadline.cancel()
            #expect(refusal?.contains("adbe.com.example.news.ios://adobe.com") == true, "\(refusal ?? "no error event")")
            #expect(refusal?.contains("SFSafariViewController") == true)
        }
    }

    @Test func theRightSchemeIsAcceptedAndAWebViewLoginStillEndsAtAdobepass() async throws {
        try await SDKFixture.with { fixture in
            fixture.service.faults = Self.svcDish
            let app = try fixture.simulatedApp(bundleID: "com.example.news.ios", team: "TEAM1234")
            app.enabler.setOptions(["handleSVC": "true"])
            await app.start(base: fixture.serviceProvider)
            app.enabler.getAuthentication()
            await app.settle()
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            let url = try #require(app.delegate.lastURL)
            app.enabler.handleExternalURL(try await HeadlessWebView().signIn(at: url, username: "carol", password: "carol123"))
            await app.settle()
            #expect(app.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: ""))
            // Cablevision has no SVC requirement: its login ends at adobepass://ios.app as before
            #expect(PassConstants.isRedirect("ADOBEPASS://ios.app?x=1", to: PassConstants.ADOBEPASS_REDIRECT_URL))
            #expect(!PassConstants.isRedirect("adbe.other://adobe.com", to: "adbe.com.example.news.ios://adobe.com"))
        }
    }
}
