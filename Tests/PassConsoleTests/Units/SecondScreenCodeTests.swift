import AccessEnabler
import Foundation
import PassProtocol
import Testing
@testable import PassConsole

struct SecondScreenCodeTests {
    let session = UUID()
    func event(_ kind: EntitlementEvent.Kind, at seconds: Double) -> EntitlementEvent {
        EntitlementEvent(sequence: 0, timestamp: Date(timeIntervalSince1970: seconds), sessionID: session, deviceID: "tv",
            app: AppIdentity(bundleID: "com.kids.tv", teamID: "K", platform: .tvOS), requestorID: "KIDSNET", mvpdID: nil, kind: kind)
    }
    var shown: [EntitlementEvent] {
        [event(.stateChanged(flow: "authentication", from: "pickingProvider", to: "polling(Dish, ABC1234)"), at: 0)]
            + (1...3).map { event(.httpExchange(exchange: HTTPExchange(method: "GET", url: "http://b/api/v1/tokens/authn", parameters: [:],
                status: 404, responseBody: nil, failure: nil, durationMs: 2)), at: Double($0) * 10) }
    }
    func life(expires: Double = 1800, activated: Bool = false, attempts: [ActivationAttempt] = []) -> RegcodeLife {
        RegcodeLife(code: "ABC1234", requestor: "KIDSNET", deviceId: "tv", created: Date(timeIntervalSince1970: 0),
            expires: Date(timeIntervalSince1970: expires), activated: activated, attempts: attempts)
    }

    @Test func nobodyUsingTheCodeUntilItExpiredIsAnErrorWithThePollCount() {
        #expect(SecondScreenCode.codes(in: shown) == ["ABC1234"])
        let verdict = SecondScreenCode.verdict(code: "ABC1234", events: shown, life: life(), now: Date(timeIntervalSince1970: 2000))
        #expect(verdict.id == "second_screen_code_not_activated" && verdict.severity == "error")
        #expect(verdict.title == "Code ABC1234 never activated (expired)")
        #expect(verdict.text.hasPrefix("Nobody used the code"))
        #expect(verdict.text.contains("The TV asked 3 times whether it was signed in"))
        #expect(verdict.text.contains("the TV must show a new one"))
    }

    @Test func aTypedCodeWithoutAProviderAndAnActivatedCodeAreToldApart() {
        let typed = ActivationAttempt(at: Date(timeIntervalSince1970: 30), code: "ABC1234", via: "activation page",
            requestorID: "KIDSNET", mvpdID: nil, outcome: "code_accepted", detail: "listed")
        let open = SecondScreenCode.verdict(code: "ABC1234", events: shown, life: life(attempts: [typed]), now: Date(timeIntervalSince1970: 60))
        #expect(open.severity == "warning" && open.text.hasPrefix("Someone typed the code at"))
        let done = SecondScreenCode.verdict(code: "ABC1234", events: shown, life: life(activated: true, attempts: [typed]),
            now: Date(timeIntervalSince1970: 60))
        #expect(done.id == "second_screen_code" && done.title == "Code ABC1234 was activated" && done.severity == "info")
        // Without the backend's record the console says what it cannot know.
        let unknown = SecondScreenCode.verdict(code: "ABC1234", events: shown, life: nil, now: Date(timeIntervalSince1970: 60))
        #expect(unknown.text.contains("could not be read"))
    }
}
