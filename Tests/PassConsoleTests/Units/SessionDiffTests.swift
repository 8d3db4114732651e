import AccessEnabler
import Foundation
import Testing
@testable import PassConsole

struct SessionDiffTests {
    struct Run {
        let session = UUID()
        var clock = 0.0
        var events: [EntitlementEvent] = []
        mutating func add(_ kind: EntitlementEvent.Kind) {
            clock += 0.01
            events.append(EntitlementEvent(sequence: events.count + 1, timestamp: Date(timeIntervalSince1970: 1000 + clock), sessionID: session,
                deviceID: "d", app: AppIdentity(bundleID: "com.a.b", teamID: "T"), requestorID: "REF30", mvpdID: nil, kind: kind))
        }
        mutating func exchange(_ path: String, _ status: Int?, ms: Double) {
            add(.httpExchange(exchange: HTTPExchange(method: "POST", url: "http://127.0.0.1:8081\(path)?x=1", parameters: [:],
                status: status, responseBody: nil, failure: status == nil ? "timed out" : nil, durationMs: ms)))
        }
    }

    @Test func theRunsAreAlignedStepByStepAndTheFirstDifferenceIsNamed() {
        var good = Run(), bad = Run()
        for run in [0, 1] {
            var r = run == 0 ? good : bad
            r.add(.apiCall(name: "getAuthorization", arguments: ["resource": "movies"]))
            r.exchange("/adobe-services/authorizeDevice", run == 0 ? 200 : 403, ms: run == 0 ? 12 : 40)
            if run == 0 {
                r.exchange("/adobe-services/deviceShortAuthorize", 200, ms: 5)
                r.add(.callback(callback: .setToken(token: "t", resource: "movies")))
            } else {
                r.add(.callback(callback: .tokenRequestFailed(resource: "movies", errorCode: "User Not Authorized Error", errorDescription: nil)))
            }
            r.add(.tracking(event: .authorizationDetection, data: []))
            if run == 0 { good = r } else { bad = r }
        }
        let diff = SessionDiff(good.events, bad.events)
        #expect(diff.rows.map(\.status) == ["same", "changed", "onlyA", "onlyA", "onlyB", "same"])
        #expect(diff.counts == SessionDiff.Counts(same: 2, changed: 1, onlyA: 2, onlyB: 1))
        // Timing alone does not make a step different; the HTTP status does.
        #expect(diff.rows[1].step == "POST /adobe-services/authorizeDevice")
        #expect(diff.verdict.contains("authorizeDevice") && diff.verdict.contains("403"))
        #expect(diff.rows[0].a?.atMs == 0)
        #expect(SessionDiff(good.events, good.events).verdict == "The runs took the same steps with the same outcomes.")
    }

    @Test func perRunIdentifiersDoNotMakeAStepDifferentButOtherValuesDo() {
        var a = Run(), b = Run(), c = Run()
        a.add(.tracking(event: .authenticationDetection, data: ["YES", "Dish", "8f0802800be7e1f5d5f7df606224d1be", "NO"]))
        b.add(.tracking(event: .authenticationDetection, data: ["YES", "Dish", "469fc7349b1b8be567e332ac0624571a", "NO"]))
        c.add(.tracking(event: .authenticationDetection, data: ["NO", "Dish", "469fc7349b1b8be567e332ac0624571a", "NO"]))
        #expect(SessionDiff(a.events, b.events).counts == SessionDiff.Counts(same: 1))
        #expect(SessionDiff(a.events, c.events).counts == SessionDiff.Counts(changed: 1))
        // Short hex-looking words (an MVPD called "Dish", a status "200") stay as they are.
        #expect(SessionDiff.withoutIdentifiers("Dish 200 cafe 0123456789abcdef0") == "Dish 200 cafe #id")
    }
}
