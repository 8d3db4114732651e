import Foundation
import Testing

@testable import AccessEnabler

/// The tvOS registration-code machine (spec §7) alone: events in, actions out, no I/O, no clock.
struct SecondScreenStateMachineTests {
    typealias Machine = SecondScreenStateMachine

    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let registration = Machine.Registration(
        code: "TJJCFK1", mvpd: "Dish", expires: start.addingTimeInterval(1800))

    /// A machine showing ``registration``, waiting for its first poll.
    static func showing() -> Machine {
        var machine = Machine()
        _ = machine.start(mvpd: "Dish")
        _ = machine.regcodeCreated(code: registration.code, expires: registration.expires)
        return machine
    }

    @Test func createsTheCodeThenShowsIt() {
        var machine = Machine()
        #expect(machine.start(mvpd: "Dish") == .createRegcode(mvpd: "Dish"))
        #expect(machine.description == "registering")
        #expect(
            machine.regcodeCreated(code: "TJJCFK1", expires: Self.registration.expires) == .showCode(Self.registration))
        #expect(machine.description == "waiting")
        #expect(machine.registration == Self.registration)
    }

    @Test func failedCreationEndsTheAttempt() {
        var machine = Machine()
        _ = machine.start(mvpd: "Dish")
        #expect(machine.regcodeFailed("HTTP 401") == .fail(reason: "HTTP 401"))
        #expect(machine.description == "finished")
        #expect(machine.registration == nil)
        #expect(machine.cancelled() == .none)
    }

    @Test func pollsUntilSomeoneSignsIn() {
        // Given a code on screen
        var machine = Self.showing()
        let now = Self.start.addingTimeInterval(10)
        // When nobody has signed in for two polls, then someone does
        #expect(machine.timerFired(now: now) == .poll(Self.registration))
        #expect(machine.pollAnswered(.notSignedIn, now: now) == .waitForNextPoll)
        #expect(machine.timerFired(now: now.addingTimeInterval(10)) == .poll(Self.registration))
        #expect(machine.pollAnswered(.failed("timeout"), now: now.addingTimeInterval(10)) == .waitForNextPoll)
        #expect(machine.timerFired(now: now.addingTimeInterval(20)) == .poll(Self.registration))
        // Then the token is fetched, and a late cancel changes nothing
        #expect(machine.pollAnswered(.signedIn, now: now.addingTimeInterval(20)) == .fetchToken(Self.registration))
        #expect(machine.description == "signedIn")
        #expect(machine.cancelled() == .none)
    }

    @Test func theCodeExpiresByTheClockBeforeAPoll() {
        var machine = Self.showing()
        #expect(machine.timerFired(now: Self.registration.expires) == .expire(Self.registration))
        #expect(machine.description == "finished")
        #expect(machine.timerFired(now: Self.registration.expires) == .none, "a late timer is tolerated")
    }

    @Test func theCodeExpiresWhileAPollIsInFlight() {
        var machine = Self.showing()
        #expect(machine.timerFired(now: Self.registration.expires.addingTimeInterval(-1)) == .poll(Self.registration))
        #expect(machine.pollAnswered(.notSignedIn, now: Self.registration.expires) == .expire(Self.registration))
    }

    @Test func goneAnswerIsConfirmedOnTheCode() {
        // A 410 from tokens/authn: an expired earlier sign-in keeps polling; an expired code ends it.
        var earlier = Self.showing()
        _ = earlier.timerFired(now: Self.start)
        #expect(earlier.pollAnswered(.tokenGone, now: Self.start) == .confirmCode(Self.registration))
        #expect(earlier.description == "confirmingCode")
        #expect(earlier.codeChecked(live: true, now: Self.start) == .waitForNextPoll)
        #expect(earlier.timerFired(now: Self.start) == .poll(Self.registration))

        var expired = Self.showing()
        _ = expired.timerFired(now: Self.start)
        _ = expired.pollAnswered(.tokenGone, now: Self.start)
        #expect(expired.codeChecked(live: false, now: Self.start) == .expire(Self.registration))
    }

    @Test func cancelFreesTheCodeOnceInEveryLiveState() {
        var waiting = Self.showing()
        #expect(waiting.cancelled() == .deleteCode("TJJCFK1"))
        #expect(waiting.cancelled() == .none, "cancel is idempotent")

        var polling = Self.showing()
        _ = polling.timerFired(now: Self.start)
        #expect(polling.cancelled() == .deleteCode("TJJCFK1"))
        #expect(polling.pollAnswered(.signedIn, now: Self.start) == .none, "an answer after the cancel is ignored")

        var confirming = Self.showing()
        _ = confirming.timerFired(now: Self.start)
        _ = confirming.pollAnswered(.tokenGone, now: Self.start)
        #expect(confirming.cancelled() == .deleteCode("TJJCFK1"))
        #expect(confirming.codeChecked(live: true, now: Self.start) == .none)
    }

    @Test func cancelWhileTheCodeIsBeingCreatedFreesItWhenItArrives() {
        var machine = Machine()
        _ = machine.start(mvpd: "Dish")
        #expect(machine.cancelled() == .none)
        #expect(machine.regcodeCreated(code: "TJJCFK1", expires: Self.registration.expires) == .deleteCode("TJJCFK1"))
        #expect(machine.description == "finished")

        var failing = Machine()
        _ = failing.start(mvpd: "Dish")
        _ = failing.cancelled()
        #expect(failing.regcodeFailed("HTTP 500") == .none, "the cancel already answered the app")
    }
}
