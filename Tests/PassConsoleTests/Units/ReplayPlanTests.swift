import AccessEnabler
import Foundation
import MicroHTTP
import Testing
@testable import PassConsole

/// Which calls of a recording a replay makes again, and what it refuses.
struct ReplayPlanTests {
    static func events(platform: Platform = .iOS, _ calls: [(String, [String: String], String?)]) -> [EntitlementEvent] {
        let session = UUID()
        return calls.enumerated().map { index, call in
            EntitlementEvent(sequence: index + 1, timestamp: Date(timeIntervalSince1970: 1000 + Double(index)), sessionID: session,
                deviceID: "d", app: AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234", platform: platform),
                requestorID: "REF30", mvpdID: call.2, kind: .apiCall(name: call.0, arguments: call.1))
        }
    }

    @Test func aLoginBecomesASignInAndTheResourcesAreKept() throws {
        let plan = try ReplayPlan(events: Self.events([
            ("setRequestor", ["requestorID": "REF30", "serviceProviders": "http://x/adobe-services"], nil),
            ("getAuthentication", ["forceAuthn": "false"], nil),
            ("setSelectedProvider", ["mvpd": "Dish"], nil),
            ("handleExternalURL", ["url": "adobepass://ios.app"], "Dish"),
            ("getAuthorization", ["resource": "news"], "Dish"),
            ("setOptions", ["visitorID": "v"], nil),
        ]))
        #expect(plan.requestorID == "REF30")
        #expect(plan.steps.map(\.method) == ["getAuthentication", "setSelectedProvider", "signIn", "getAuthorization"])
        #expect(plan.logins == [.init(mvpd: "Dish", userHash: nil)])
        #expect(plan.steps[2].arguments == ["mvpd": "Dish"])
        #expect(plan.resources == ["news"])
        #expect(plan.skipped == ["setOptions"])
    }

    @Test func aCancelledLoginIsHandedBackAndALogoutChainIsNotASignIn() throws {
        let plan = try ReplayPlan(events: Self.events([
            ("setRequestor", ["requestorID": "REF30"], nil),
            ("getAuthentication", ["forceAuthn": "false"], nil),
            ("setSelectedProvider", ["mvpd": "Dish"], nil),
            ("handleExternalURL", ["url": "adobepass://ios.app?error=user_cancelled"], "Dish"),
            ("logout", [:], nil),
            ("handleExternalURL", ["url": "adobepass://ios.app"], nil),
        ]))
        #expect(plan.steps.map(\.method) == ["getAuthentication", "setSelectedProvider", "handleExternalURL", "logout"])
        #expect(plan.logins.isEmpty)
    }

    @Test func eachLoginKnowsItsMVPDAndTheUserTheSDKTrackedAfterIt() throws {
        var events = Self.events([
            ("setRequestor", ["requestorID": "REF30"], nil),
            ("getAuthentication", [:], nil),
            ("setSelectedProvider", ["mvpd": "Dish"], nil),
            ("handleExternalURL", ["url": "adobepass://ios.app"], "Dish"),
            ("logout", [:], nil),
            ("handleExternalURL", ["url": "adobepass://ios.app"], nil),
            ("getAuthentication", [:], nil),
            ("setSelectedProvider", ["mvpd": "Spectrum"], nil),
            ("handleExternalURL", ["url": "adobepass://ios.app"], "Spectrum"),
        ])
        func tracked(_ mvpd: String, _ hash: String, after index: Int) -> EntitlementEvent {
            var event = events[index]
            event.kind = .tracking(event: .authenticationDetection, data: ["YES", mvpd, hash, "NO", "iPhone", "iOS", "17"])
            return event
        }
        events.insert(tracked("Dish", "dave-hash", after: 3), at: 4)
        events.append(tracked("Spectrum", "bob-hash", after: 9))
        let plan = try ReplayPlan(events: events)
        #expect(plan.logins == [.init(mvpd: "Dish", userHash: "dave-hash"), .init(mvpd: "Spectrum", userHash: "bob-hash")])
        #expect(plan.loginMvpds == ["Dish", "Spectrum"])
    }

    @Test func tvOSAndSessionsWithoutSetRequestorAreRefusedWithAReason() {
        #expect(throws: HTTPError.self) {
            try ReplayPlan(events: Self.events(platform: .tvOS, [("setRequestor", ["requestorID": "KIDSNET"], nil)]))
        }
        do {
            _ = try ReplayPlan(events: Self.events([("getAuthentication", [:], nil)]))
            Issue.record("a session without setRequestor was accepted")
        } catch {
            #expect(error.code == "no_set_requestor")
        }
    }
}
