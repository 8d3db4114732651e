import AccessEnabler
import Foundation
import PassBackend
import PassProtocol
import PassStorage
import Testing

/// Logout clears everything and follows the chain (seed 002); getMetadata, preauthorization, faults. On REST API v2
/// too, but for the logout's reach: one Programmer's profile ends, the others' stay.
@Suite struct LogoutAndMetadataTests {
    @Test func logoutClearsEveryProgrammerAndFollowsTheChain() async throws {
        try await SDKFixture.with { fixture in
            let sports = try fixture.app(bundleID: "com.example.sports.ios")
            await sports.start("SPORTS1", base: fixture.serviceProvider)
            try await sports.login(mvpd: "Dish", username: "carol", password: "carol123")
            let news = try fixture.app()
            await news.start(base: fixture.serviceProvider)
            news.enabler.getAuthentication()
            await news.settle()
            #expect(news.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: ""), "SSO within the team")
            news.delegate.clear()
            news.enabler.logout()
            await news.settle()
            // Storage is empty before the web flow completes
            let stored = try JSONDecoder().decode(TokenStorage.self, from: try #require(try news.configuration.storage.read()))
            #expect(stored.requestors.isEmpty)
            let url = try #require(news.delegate.lastURL)
            #expect(url.contains("/logout?"))
            let end = try await news.webView.followLogout(url)
            #expect(end.hasPrefix("adobepass://ios.app"))
            news.enabler.handleExternalURL(end)
            await news.settle()
            #expect(news.delegate.main == [.navigateToUrl(url: url, useSVC: nil), .setAuthenticationStatus(status: 0, errorCode: "")])
            // The other app on the same team is logged out too
            sports.enabler.checkAuthentication()
            await sports.settle()
            #expect(sports.delegate.main.last == .setAuthenticationStatus(status: 0, errorCode: ErrorCode.USER_NOT_AUTHENTICATED_ERROR))
        }
    }

    /// Issue #27 item 7 (AND18, spec §1.12): logout with nobody signed in went to the service's logout without
    /// `mso_id`, which answers 400, so the web view never reached the app and no status 0 came. A double tap on Sign
    /// out is the common case.
    @Test func logoutWithNobodySignedInGoesStraightToTheRedirectAndAnswersStatus0() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app()
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            app.enabler.logout()
            await app.settle()
            let first = try #require(app.delegate.lastURL)
            #expect(first.contains("/logout?") && first.contains("mso_id=Dish"), "a sign-in to end: the service's chain")
            app.enabler.handleExternalURL(try await app.webView.followLogout(first))
            await app.settle()
            app.delegate.clear()
            // The second tap: nobody is signed in any more.
            app.enabler.logout()
            await app.settle()
            let second = try #require(app.delegate.lastURL)
            #expect(second == app.configuration.redirectURL, "straight to the redirect-back URL, not the service's logout")
            app.enabler.handleExternalURL(try await app.webView.followLogout(second))
            await app.settle()
            #expect(app.delegate.main == [.navigateToUrl(url: second, useSVC: nil), .setAuthenticationStatus(status: 0, errorCode: "")])
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func metadataAnswersEachKey(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            app.enabler.getMetadata(["opCode": "0"])
            await app.settle()
            #expect(app.delegate.main.last == .setMetadataStatus(metadata: nil, encrypted: false, key: 0, arguments: ["opCode": "0"]))
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            app.enabler.getAuthorization("news")
            app.enabler.getMetadata(["opCode": "0"])
            app.enabler.getMetadata(["opCode": "1", "resource_id": "news"])
            app.enabler.getMetadata(["opCode": "2"])
            app.enabler.getMetadata(["opCode": "3", "user_metadata_name": "householdID"])
            app.enabler.getMetadata(["opCode": "3", "user_metadata_name": "maxRating"])
            await app.settle()
            let answers = app.delegate.callbacks.compactMap { if case .setMetadataStatus(let value, _, let key, _) = $0 { (key, value) } else { nil } }
            #expect(answers.count == 6)
            #expect(answers[1].0 == 0 && answers[1].1?.plainText?.contains("GMT") == true)
            #expect(answers[2].0 == 1 && answers[2].1 != nil)
            #expect(answers[3].1 == "device-1")
            #expect(answers[4].1 == "hh-carol")
            #expect(answers[5].1 == ["MPAA": "R", "VCHIP": "TV-MA"])
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func preauthorizationListsTheAllowedSubset(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "dave", password: "dave123")
            app.enabler.checkPreauthorizedResources(["news", "kids", "sports"])
            await app.settle()
            #expect(app.delegate.main.last == .preauthorizedResources(resources: ["kids"]))
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func malformedAnswerIsAnErrorNotACrash(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            let path = wire == .sdk ? "/adobe-services/1.0/authorizeDevice" : "/api/v2/REF30/decisions/authorize/"
            fixture.service.faults.rules.append(FaultRule(path: path, malformed: true, remaining: 1))
            app.enabler.getAuthorization("news")
            app.enabler.checkAuthentication()
            await app.settle()
            #expect(app.delegate.main.suffix(2).map(\.name) == ["tokenRequestFailed", "setAuthenticationStatus"])
            #expect(app.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: ""), "storage untouched, still signed in")
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func eventsCarryTheSessionAndAreRedacted(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            app.enabler.setOptions(["visitorID": "visitor-42"])
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            app.enabler.getAuthorization("news")
            await app.settle()
            var collected: [EntitlementEvent] = []
            for await event in app.enabler.events(replay: true) {
                collected.append(event)
                if case .callback(.setToken) = event.kind { break }
            }
            #expect(collected.map(\.sequence) == Array(1...collected.count))
            let exchanges = collected.compactMap { if case .httpExchange(let exchange) = $0.kind { exchange } else { nil } }
            #expect(!exchanges.isEmpty)
            #expect(exchanges.allSatisfy { $0.headers["AP-Visitor-Identifier"] == "visitor-42" })
            switch wire {
            case .sdk:
                let authorize = try #require(exchanges.first { $0.url.hasSuffix("authorizeDevice") })
                #expect(authorize.parameters["authentication_token"]?.contains("redacted") == true)
            case .restV2:
                let register = try #require(exchanges.first { $0.url.hasSuffix("/o/client/register") })
                #expect(register.parameters["software_statement"] == "[redacted]", "a short statement is hidden whole")
                #expect(register.responseBody?.contains(#""client_secret":"[redacted"#) == false)
                let token = try #require(exchanges.first { $0.url.hasSuffix("/o/client/token") })
                #expect(token.responseBody?.contains("…[redacted") == true)
                let decision = try #require(exchanges.first { $0.url.contains("/decisions/authorize/") })
                #expect(decision.headers["Authorization"]?.contains("[redacted") == true)
                #expect(decision.responseBody?.contains("[token redacted]") == true)
            }
            #expect(collected.contains { if case .stateChanged(flow: .authentication, _, to: .pickingProvider) = $0.kind { true } else { false } })
            // Every name the SDK emits is one it knows: a method or state missing from `APIMethod.known` / `FlowState`
            // would arrive as `.other`.
            for event in collected {
                switch event.kind {
                case .apiCall(let method, _): #expect(method.isKnown, "\(method) is not in APIMethod.known")
                case .stateChanged(let flow, let from, let to):
                    #expect(FlowKind.known.contains(flow) && from.name != nil && to.name != nil, "\(event.kind)")
                default: break
                }
            }
            let encoded = try JSONEncoder().encode(collected)
            #expect(try JSONDecoder().decode([EntitlementEvent].self, from: encoded) == collected)
        }
    }

    /// REST API v2's variant of the logout: it ends this Programmer's profile at its MVPD and follows the MVPD's
    /// logout in the web view; another Programmer's profile on the same phone stays (nothing shared on the device).
    @Test func onV2LogoutEndsOneProgrammersProfileAndFollowsTheChain() async throws {
        try await SDKFixture.with { fixture in
            let sports = try fixture.app(bundleID: "com.example.sports.ios", wire: .restV2)
            await sports.start("SPORTS1", base: fixture.serviceProvider)
            try await sports.login(mvpd: "Dish", username: "carol", password: "carol123")
            let news = try fixture.app(wire: .restV2)
            await news.start(base: fixture.serviceProvider)
            try await news.login(mvpd: "Dish", username: "carol", password: "carol123")
            #expect(news.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: ""))
            news.delegate.clear()
            news.enabler.logout()
            await news.settle()
            // The chosen MVPD and the profile copy are gone before the web flow completes
            #expect(try news.v2State().requestors["REF30"] == nil)
            let url = try #require(news.delegate.lastURL)
            #expect(url.hasPrefix(fixture.baseURL + "/adobe-services/logout?"))
            let end = try await news.webView.followLogout(url)
            #expect(end.hasPrefix("adobepass://ios.app"))
            news.enabler.handleExternalURL(end)
            await news.settle()
            #expect(news.delegate.main == [.navigateToUrl(url: url, useSVC: nil), .setAuthenticationStatus(status: 0, errorCode: "")])
            #expect(await news.isAuthenticated() == false)
            #expect(await sports.isAuthenticated(), "SPORTS1's profile stays")
        }
    }

    @Test func onV2ALogoutWithoutASignInEndsAtOnce() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: .restV2)
            await app.start(base: fixture.serviceProvider)
            app.enabler.logout()
            await app.settle()
            #expect(app.delegate.main == [.setRequestorComplete(status: 1), .setAuthenticationStatus(status: 0, errorCode: "")])
        }
    }
}
