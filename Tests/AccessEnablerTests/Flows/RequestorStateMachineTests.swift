@testable import AccessEnabler
import Testing

/// The call queue of setRequestor as a pure state machine (no threads, no sleeps).
struct RequestorStateMachineTests {
    @Test func callsMadeDuringSetRequestorRunAfterItInOrder() {
        var machine = RequestorStateMachine()
        machine.setRequestorStarted()
        #expect(machine.call(.checkAuthentication) == .enqueue)
        #expect(machine.call(.getAuthorization(resource: "bravo", data: nil)) == .enqueue)
        #expect(machine.description == "configuring (2 queued)")
        #expect(machine.configurationFinished(success: true) == .complete(draining: [.checkAuthentication, .getAuthorization(resource: "bravo", data: nil)]))
        #expect(machine.call(.logout) == .run(.logout))
    }

    @Test func failureDrainsTheQueueForErrorCallbacksAndLaterCallsFail() {
        var machine = RequestorStateMachine()
        machine.setRequestorStarted()
        _ = machine.call(.getAuthentication(forceAuthn: false, data: nil))
        #expect(machine.configurationFinished(success: false) == .fail(draining: [.getAuthentication(forceAuthn: false, data: nil)]))
        #expect(machine.call(.checkAuthentication) == .fail(.checkAuthentication))
    }

    @Test func callsBeforeAnySetRequestorFail() {
        var machine = RequestorStateMachine()
        #expect(machine.call(.checkAuthentication) == .fail(.checkAuthentication))
        #expect(machine.description == "unconfigured")
    }

    @Test func aSecondSetRequestorWhileConfiguringKeepsTheQueue() {
        var machine = RequestorStateMachine()
        machine.setRequestorStarted()
        _ = machine.call(.checkAuthentication)
        machine.setRequestorStarted()
        #expect(machine.configurationFinished(success: true) == .complete(draining: [.checkAuthentication]))
    }

    @Test func setRequestorAgainAfterReadyQueuesUntilItCompletes() {
        var machine = RequestorStateMachine()
        machine.setRequestorStarted()
        _ = machine.configurationFinished(success: true)
        machine.setRequestorStarted()
        #expect(machine.call(.checkAuthentication) == .enqueue)
        #expect(machine.isReady == false)
    }
}
