import AccessEnabler
import Foundation
import Testing
@testable import PassConsole

/// The console's tables of the SDK's names: every flow state has its place in the flow diagram and every API method
/// its treatment in a replay. The tables are exhaustive switches, so a case added to `FlowState` or `APIMethod`
/// fails the build; these tests hold what the tables say to the rest of the console.
struct ConsoleKnowsEveryEventNameTests {
    @Test func everyStateLightsAStepOfTheDiagramOrNone() {
        let ids = Set(FlowProgress.steps.map(\.id))
        var lit: Set<String> = []
        for name in FlowState.Name.allCases {
            guard let step = FlowProgress.step(litBy: name) else { continue }
            #expect(ids.contains(step), "\(name) lights \(step), which the diagram does not have")
            lit.insert(step)
        }
        #expect(lit == ["picker", "login", "token"], "the diagram's state-driven steps")
    }

    @Test func everyStateMovesTheDiagramWhereItsTableSays() {
        let session = UUID()
        func event(_ kind: EntitlementEvent.Kind) -> EntitlementEvent {
            EntitlementEvent(sequence: 1, timestamp: Date(timeIntervalSince1970: 10), sessionID: session, deviceID: "d",
                app: AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234"), requestorID: "REF30", mvpdID: nil, kind: kind)
        }
        let states: [FlowState] = [.pickingProvider, .awaitingLogin(mvpd: "Dish"), .polling(mvpd: "Dish", code: "C0DE"),
            .fetchingToken(mvpd: "Dish")]
        for state in states {
            let progress = FlowProgress.replay([event(.stateChanged(flow: .authentication, from: .idle, to: state))])
            #expect(progress.current == state.name.flatMap(FlowProgress.step(litBy:)), "\(state)")
        }
        #expect(FlowProgress.replay([event(.stateChanged(flow: .authentication, from: .idle, to: .polling(mvpd: "Dish", code: "C0DE")))])
            .regcode == "C0DE")
    }

    /// A replay makes again exactly the methods the console's app can call; `handleExternalURL` becomes the sign-in.
    @Test func everyReplayedMethodIsOneTheConsoleAppCalls() {
        for method in APIMethod.known {
            switch ReplayPlan.treatment(of: method) {
            case .replay: #expect(ConsoleApp.callable.contains(method.rawValue), "\(method) is replayed but ConsoleApp cannot call it")
            case .login: #expect(method == .handleExternalURL)
            case .start: #expect(method == .setRequestor)
            case .skip: #expect(!ConsoleApp.callable.contains(method.rawValue), "\(method) is callable but never replayed")
            }
        }
        for name in ConsoleApp.callable { #expect(APIMethod(rawValue: name).isKnown, "ConsoleApp calls \(name), unknown to APIMethod") }
        #expect(ReplayPlan.treatment(of: .other("lb12")) == .skip)
    }
}
