import AccessEnabler
import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// sendTrackingData (spec §4): the triggering calls, the event types, the documented item order.
@Suite struct TrackingTests {
    @Test(arguments: EntitlementProtocol.allCases) func eachTriggeringCallSendsItsEventWithTheDocumentedFields(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            // checkAuthentication, not signed in: failure, no MVPD/GUID/cached
            app.enabler.checkAuthentication()
            await app.settle()
            #expect(app.delegate.tracking.last?.0 == .authenticationDetection)
            // The last three items are the configuration's device, client type and OS: on v2 the service derives them
            // from X-Device-Info (docs/sdk.md, "Callbacks: what stays, what differs").
            // Device types from the seeds' list on both protocols (REST v2's MobilePhone is a mobile)
            let platform = wire == .sdk ? ["mobile", "ios", "iOS"] : ["mobile", "iOS", "iOS"]
            #expect(app.delegate.tracking.last?.1 == ["NO", "None", "None", "None"] + platform)
            // setSelectedProvider: mvpdSelection with the MVPD first
            app.enabler.getAuthentication()
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            #expect(app.delegate.tracking.last?.0 == .mvpdSelection)
            #expect(app.delegate.tracking.last?.1 == ["Dish"] + platform)
            // handleExternalURL: success with the MVPD, the MD5 of the GUID, not cached
            let end = try await app.webView.signIn(at: try #require(app.delegate.lastURL), username: "carol", password: "carol123")
            app.enabler.handleExternalURL(end)
            await app.settle()
            let authn = try #require(app.delegate.tracking.last)
            #expect(authn.0 == .authenticationDetection)
            #expect(authn.1.count == 7)
            #expect(authn.1[0] == "YES" && authn.1[1] == "Dish" && authn.1[3] == "NO")
            #expect(authn.1[2].count == 32 && authn.1[2].allSatisfy(\.isHexDigit), "GUID reported MD5-hashed")
            // getAuthorization: authorization event with 9 items; failure carries the code and details
            app.enabler.getAuthorization("news")
            await app.settle()
            let authz = try #require(app.delegate.tracking.last)
            #expect(authz.0 == .authorizationDetection)
            #expect(authz.1.count == 9)
            #expect(authz.1[0] == "YES" && authz.1[1] == "Dish" && authz.1[3] == "NO" && authz.1[4] == "None")
            fixture.service.faults.denials = [Denial(mvpd: "Dish", resource: "movies", message: "Upgrade to the Movie package")]
            app.enabler.checkAuthorization("movies")
            await app.settle()
            let denied = try #require(app.delegate.tracking.last)
            #expect(denied.1[0] == "NO" && denied.1[1] == "Dish")
            #expect(denied.1[4] == ErrorCode.USER_NOT_AUTHORIZED_ERROR)
            #expect(denied.1[5] == "Upgrade to the Movie package")
            #expect(Array(denied.1.suffix(3)) == platform)
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func mvpdSelectionIsSentOnlyWhenTheMvpdChanges(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            let before = app.delegate.tracking.filter { $0.0 == .mvpdSelection }.count
            app.enabler.setSelectedProvider("Dish")
            await app.settle()
            #expect(app.delegate.tracking.filter { $0.0 == .mvpdSelection }.count == before)
            app.enabler.setSelectedProvider("Spectrum")
            await app.settle()
            #expect(app.delegate.tracking.filter { $0.0 == .mvpdSelection }.count == before + 1)
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func slowBackendTimesOutAsANetworkErrorAndTheQueueDrains(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            // The timeout leaves ordinary requests room on a loaded machine (the sign-in below must not time out; at
            // 1 s it did during parallel builds); the held answer is three times longer.
            let app = try fixture.app(wire: wire, configure: { $0.requestTimeout = TestTime.seconds(4) })
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            fixture.service.faults.rules = [
                FaultRule(path: SDKFixture.authorizePath(wire), latencyMs: TestTime.milliseconds(12000), remaining: 1)]
            app.enabler.getAuthorization("news")
            app.enabler.checkAuthentication()
            await app.settle()
            let failed = app.delegate.main.compactMap { if case .tokenRequestFailed(_, let code, _) = $0 { code } else { nil } }
            #expect(failed == [ErrorCode.GENERIC_AUTHORIZATION_ERROR])
            #expect(app.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: ""), "the next call still ran; storage untouched")
        }
    }
}
