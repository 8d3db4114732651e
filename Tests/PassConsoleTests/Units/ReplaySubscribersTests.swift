import AccessEnabler
import Foundation
import MicroHTTP
import PassProtocol
import Testing
@testable import PassConsole

/// Who a replay signs in as at each MVPD: the recorded user, or a question, never a stand-in.
struct ReplaySubscribersTests {
    static let subscribers = [
        Subscriber(mvpd: "Dish", username: "carol", password: "carol123", entitlements: ["*"]),
        Subscriber(mvpd: "Dish", username: "dave", password: "dave123", entitlements: ["kids"]),
        Subscriber(mvpd: "Spectrum", username: "bob", password: "bob123", entitlements: ["news"]),
    ]

    static func plan(_ logins: [ReplayPlan.Login]) throws -> ReplayPlan {
        var plan = try ReplayPlan(events: ReplayPlanTests.events([("setRequestor", ["requestorID": "REF30"], nil)]))
        plan.logins = logins
        return plan
    }

    static func signIn(_ guid: String, _ mvpd: String, _ username: String, device: String = "other") -> ReplaySubscribers.SignIn {
        .init(guid: guid, requestorID: "REF30", mvpdID: mvpd, deviceID: device, username: username)
    }

    @Test func eachMVPDSignsInAsTheUserTheRecordingTracked() throws {
        let plan = try Self.plan([
            .init(mvpd: "Dish", userHash: TrackingEvent.userHash(of: "g-dave")),
            .init(mvpd: "Spectrum", userHash: TrackingEvent.userHash(of: "g-bob")),
        ])
        let who = ReplaySubscribers(plan: plan, deviceID: "d", subscribers: Self.subscribers,
            signIns: [Self.signIn("g-carol", "Dish", "carol"), Self.signIn("g-dave", "Dish", "dave"), Self.signIn("g-bob", "Spectrum", "bob")])
        let resolved = try who.resolve(Console.ReplayRequest()).get()
        #expect(resolved["Dish"]?.username == "dave")
        #expect(resolved["Dish"]?.password == "dave123")
        #expect(resolved["Spectrum"]?.username == "bob")
        #expect(resolved["Dish"]?.source == "the recorded user at Dish")
    }

    @Test func anUnknownUserIsAQuestionWithTheCandidatesAndAPickAnswersIt() throws {
        let plan = try Self.plan([.init(mvpd: "Dish", userHash: "unknown")])
        let who = ReplaySubscribers(plan: plan, deviceID: "d", subscribers: Self.subscribers, signIns: [])
        guard case .failure(let question) = try who.resolve(Console.ReplayRequest()) else {
            Issue.record("a replay with an unknown user did not ask")
            return
        }
        #expect(question.candidates.map(\.mvpd) == ["Dish"])
        #expect(question.candidates[0].usernames == ["carol", "dave"])
        let picked = try who.resolve(Console.ReplayRequest(subscribers: ["Dish": "dave"])).get()
        #expect(picked["Dish"]?.username == "dave")
        #expect(throws: HTTPError.self) { try who.resolve(Console.ReplayRequest(subscribers: ["Dish": "bob"])) }
    }

    @Test func withoutTheTrackedUserTheOneUserTheDeviceSignedInAsIsUsedAndTwoAreAsked() throws {
        let plan = try Self.plan([.init(mvpd: "Dish", userHash: nil)])
        let one = ReplaySubscribers(plan: plan, deviceID: "d", subscribers: Self.subscribers,
            signIns: [Self.signIn("g1", "Dish", "dave", device: "d"), Self.signIn("g2", "Dish", "carol", device: "elsewhere")])
        #expect(try one.resolve(Console.ReplayRequest()).get()["Dish"]?.username == "dave")
        let two = ReplaySubscribers(plan: plan, deviceID: "d", subscribers: Self.subscribers,
            signIns: [Self.signIn("g1", "Dish", "dave", device: "d"), Self.signIn("g2", "Dish", "carol", device: "d")])
        guard case .failure = try two.resolve(Console.ReplayRequest()) else {
            Issue.record("two users on the device did not ask")
            return
        }
    }
}
