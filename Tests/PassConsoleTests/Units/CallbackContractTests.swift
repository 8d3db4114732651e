import AccessEnabler
import Foundation
import Testing
@testable import PassConsole

struct CallbackContractTests {
    let session = UUID()
    var clock = 0.0
    mutating func event(_ kind: EntitlementEvent.Kind) -> EntitlementEvent {
        clock += 1
        return EntitlementEvent(sequence: Int(clock), timestamp: Date(timeIntervalSince1970: clock), sessionID: session, deviceID: "d",
            app: AppIdentity(bundleID: "com.a.b", teamID: "T"), requestorID: "REF30", mvpdID: nil, kind: kind)
    }
    func status(_ rules: [CallbackContract.Rule], _ id: String) -> String? { rules.first { $0.id == id }?.status }

    @Test mutating func aWellBehavedSessionKeepsEveryRuleItExercises() {
        let events = [
            event(.apiCall(name: "setRequestor", arguments: [:])), event(.apiCall(name: "checkAuthorization", arguments: ["resource": "news"])),
            event(.callback(callback: .setRequestorComplete(status: 1))),
            event(.callback(callback: .tokenRequestFailed(resource: "news", errorCode: "User Not Authenticated Error", errorDescription: nil))),
            event(.tracking(event: .authorizationDetection, data: [])),
            event(.apiCall(name: "checkAuthentication", arguments: [:])),
            event(.callback(callback: .setAuthenticationStatus(status: 0, errorCode: "User Not Authenticated Error"))),
            event(.tracking(event: .authenticationDetection, data: [])),
            event(.apiCall(name: "logout", arguments: [:])), event(.storageChanged(domain: "team T", change: "logout cleared all")),
            event(.apiCall(name: "handleExternalURL", arguments: [:])),
            event(.callback(callback: .setAuthenticationStatus(status: 0, errorCode: nil))),
        ]
        let rules = CallbackContract.check(events)
        #expect(rules.filter { $0.status == "broken" }.isEmpty, "\(rules)")
        #expect(status(rules, "requestor_first") == "kept" && status(rules, "logout_ends_signed_out") == "kept")
        #expect(status(rules, "authentication_tracked") == "kept" && status(rules, "authorization_tracked") == "kept")
    }

    @Test mutating func eachBrokenRuleIsNamedWithTheMomentItBroke() {
        let events = [
            event(.apiCall(name: "setRequestor", arguments: [:])), event(.apiCall(name: "checkAuthorization", arguments: ["resource": "news"])),
            event(.callback(callback: .tokenRequestFailed(resource: "news", errorCode: "Oops", errorDescription: nil))),
            event(.callback(callback: .setRequestorComplete(status: 1))),
            event(.callback(callback: .setToken(token: "t", resource: "news"))),
            event(.storageChanged(domain: "team T", change: "media token for news stored")),
            event(.apiCall(name: "checkAuthentication", arguments: [:])),
            event(.httpExchange(exchange: HTTPExchange(method: "POST", url: "http://b/adobe-services/sessionDevice", parameters: [:],
                status: 200, responseBody: nil, failure: nil, durationMs: 1))),
            event(.callback(callback: .setAuthenticationStatus(status: 1, errorCode: ""))),
            event(.apiCall(name: "logout", arguments: [:])),
            event(.callback(callback: .setAuthenticationStatus(status: 1, errorCode: ""))),
        ]
        let rules = CallbackContract.check(events)
        for id in ["requestor_first", "one_authorization_answer", "documented_error_codes", "media_tokens_not_stored", "check_is_local",
            "authorization_tracked", "authentication_tracked", "logout_ends_signed_out"]
        {
            #expect(status(rules, id) == "broken", "\(id)")
        }
        let early = rules.first { $0.id == "requestor_first" }?.violations.first ?? ""
        #expect(early.contains("tokenRequestFailed") && early.contains("before setRequestorComplete"))
        #expect(CallbackContract.check([]).allSatisfy { $0.status == "unexercised" })
    }
}
