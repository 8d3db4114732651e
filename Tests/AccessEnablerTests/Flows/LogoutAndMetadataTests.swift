import AccessEnabler
import Foundation
import PassBackend
import PassProtocol
import PassStorage
import Testing

/// Logout clears everything and follows the chain (seed 002); getMetadata, preauthorization, faults.
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

    @Test func metadataAnswersEachKey() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app()
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

    @Test func preauthorizationListsTheAllowedSubset() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app()
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "dave", password: "dave123")
            app.enabler.checkPreauthorizedResources(["news", "kids", "sports"])
            await app.settle()
            #expect(app.delegate.main.last == .preauthorizedResources(resources: ["kids"]))
        }
    }

    @Test func malformedAnswerIsAnErrorNotACrash() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app()
            await app.start(base: fixture.serviceProvider)
            try await app.login(mvpd: "Dish", username: "carol", password: "carol123")
            fixture.service.faults.rules.append(FaultRule(path: "/adobe-services/1.0/authorizeDevice", malformed: true, remaining: 1))
            app.enabler.getAuthorization("news")
            app.enabler.checkAuthentication()
            await app.settle()
            #expect(app.delegate.main.suffix(2).map(\.name) == ["tokenRequestFailed", "setAuthenticationStatus"])
            #expect(app.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: ""), "storage untouched, still signed in")
        }
    }

    @Test func eventsCarryTheSessionAndAreRedacted() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app()
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
            let authorize = try #require(exchanges.first { $0.url.hasSuffix("authorizeDevice") })
            #expect(authorize.parameters["authentication_token"]?.contains("redacted") == true)
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
}
