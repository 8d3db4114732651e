import Foundation

/// The tvOS second-screen login (spec §7): create a registration code, show it, poll until someone signs in with
/// it on another device, the code expires, or the app cancels.
///
/// One machine per attempt. It does no I/O and reads no clock: the engine feeds it events with the time they
/// happened and performs the ``Action`` each returns, until ``Action/none``, ``Action/fetchToken(_:)``,
/// ``Action/expire(_:)``, ``Action/fail(reason:)`` or ``Action/deleteCode(_:)`` ends the attempt.
///
/// ```
/// idle ─start→ registering ─regcodeCreated→ waiting ─timerFired→ polling ─pollAnswered(.notSignedIn)→ waiting
///                          ─regcodeFailed→ finished                       ─pollAnswered(.signedIn)→ signedIn
///                                                                         ─pollAnswered(.tokenGone)→ confirmingCode
/// ```
struct SecondScreenStateMachine: Sendable {
    /// A code the device shows: what it is, for which MVPD, until when.
    struct Registration: Sendable, Equatable {
        var code: String
        var mvpd: String
        var expires: Date
    }

    /// What one `tokens/authn` poll found.
    enum PollAnswer: Sendable, Equatable {
        /// Someone signed in for this device.
        case signedIn
        /// Nobody has signed in yet.
        case notSignedIn
        /// The device has an authentication that expired (a sign-in from before this code, or the code's own).
        case tokenGone
        /// No usable answer (network, server error); polling goes on until the code expires.
        case failed(String)
    }

    enum Action: Sendable, Equatable {
        /// Create a registration code for this MVPD, then call ``regcodeCreated(code:expires:)`` or
        /// ``regcodeFailed(_:)``.
        case createRegcode(mvpd: String)
        /// Show the code (`status(REGCODE)`), then wait one poll interval and call ``timerFired(now:)``.
        case showCode(Registration)
        /// Ask whether the device is signed in, then call ``pollAnswered(_:now:)``.
        case poll(Registration)
        /// Ask whether the code itself is still live, then call ``codeChecked(live:now:)``.
        case confirmCode(Registration)
        /// Wait one poll interval, then call ``timerFired(now:)``.
        case waitForNextPoll
        /// Someone signed in: fetch the authN token. Ends the attempt.
        case fetchToken(Registration)
        /// The code expired before anyone signed in with it. Ends the attempt.
        case expire(Registration)
        /// No code could be created (`REG500`). Ends the attempt.
        case fail(reason: String)
        /// The attempt was cancelled while a code was live: free it on the server. Ends the attempt.
        case deleteCode(String)
        /// Nothing to do.
        case none
    }

    private enum State: Sendable {
        case idle
        case registering(mvpd: String)
        /// The code is shown; the next poll is due after an interval.
        case waiting(Registration)
        /// A `tokens/authn` request is in flight.
        case polling(Registration)
        /// `tokens/authn` answered 410: checking whether that was the code expiring or an older sign-in.
        case confirmingCode(Registration)
        case signedIn(Registration)
        /// Failed, expired or cancelled.
        case finished
    }

    private var state = State.idle

    /// A payload-free name for logs and the console.
    var description: String {
        switch state {
        case .idle: "idle"
        case .registering: "registering"
        case .waiting: "waiting"
        case .polling: "polling"
        case .confirmingCode: "confirmingCode"
        case .signedIn: "signedIn"
        case .finished: "finished"
        }
    }

    /// The code being shown, while the attempt is live.
    var registration: Registration? {
        switch state {
        case .waiting(let registration), .polling(let registration), .confirmingCode(let registration): registration
        case .idle, .registering, .signedIn, .finished: nil
        }
    }

    // MARK: - Events

    /// The user picked an MVPD on tvOS.
    mutating func start(mvpd: String) -> Action {
        guard case .idle = state else { preconditionFailure("Invalid state: start while \(description)") }
        state = .registering(mvpd: mvpd)
        return .createRegcode(mvpd: mvpd)
    }

    /// The server created the code.
    mutating func regcodeCreated(code: String, expires: Date) -> Action {
        switch state {
        case .registering(let mvpd):
            let registration = Registration(code: code, mvpd: mvpd, expires: expires)
            state = .waiting(registration)
            return .showCode(registration)
        case .finished:
            // Cancelled while the code was being created: tolerated; nobody will show it, so free it.
            return .deleteCode(code)
        case .idle, .waiting, .polling, .confirmingCode, .signedIn:
            preconditionFailure("Invalid state: regcode created while \(description)")
        }
    }

    /// The code could not be created.
    mutating func regcodeFailed(_ reason: String) -> Action {
        switch state {
        case .registering:
            state = .finished
            return .fail(reason: reason)
        case .finished: return .none  // Cancelled meanwhile: the cancel already answered the app.
        case .idle, .waiting, .polling, .confirmingCode, .signedIn:
            preconditionFailure("Invalid state: regcode failed while \(description)")
        }
    }

    /// A poll interval has passed.
    mutating func timerFired(now: Date) -> Action {
        switch state {
        case .waiting(let registration):
            if now >= registration.expires {
                state = .finished
                return .expire(registration)
            }
            state = .polling(registration)
            return .poll(registration)
        case .finished, .signedIn: return .none  // A timer that raced the end of the attempt.
        case .idle, .registering, .polling, .confirmingCode:
            preconditionFailure("Invalid state: timer fired while \(description)")
        }
    }

    /// The `tokens/authn` poll answered.
    mutating func pollAnswered(_ answer: PollAnswer, now: Date) -> Action {
        switch state {
        case .polling(let registration):
            switch answer {
            case .signedIn:
                state = .signedIn(registration)
                return .fetchToken(registration)
            case .tokenGone:
                state = .confirmingCode(registration)
                return .confirmCode(registration)
            case .notSignedIn, .failed:
                return waitOrExpire(registration, now: now)
            }
        case .finished: return .none  // Cancelled while the request was in flight; the cancel freed the code.
        case .idle, .registering, .waiting, .confirmingCode, .signedIn:
            preconditionFailure("Invalid state: poll answered while \(description)")
        }
    }

    /// The code check after a `410` answered: `live` is `false` when the server says the code expired or is gone.
    /// A check that failed counts as live: the local clock still ends the attempt at the code's expiry.
    mutating func codeChecked(live: Bool, now: Date) -> Action {
        switch state {
        case .confirmingCode(let registration):
            guard live else {
                state = .finished
                return .expire(registration)
            }
            return waitOrExpire(registration, now: now)
        case .finished: return .none  // Cancelled while the request was in flight.
        case .idle, .registering, .waiting, .polling, .signedIn:
            preconditionFailure("Invalid state: code checked while \(description)")
        }
    }

    /// The app cancelled (`setSelectedProvider(nil)`), restarted authentication, or logged out.
    ///
    /// Idempotent: no effect when called again or after the attempt ended.
    mutating func cancelled() -> Action {
        switch state {
        case .idle, .registering:
            state = .finished
            return .none
        case .waiting(let registration), .polling(let registration), .confirmingCode(let registration):
            state = .finished
            return .deleteCode(registration.code)
        case .signedIn, .finished:
            // The attempt already ended; a sign-in that succeeded is the token fetch's business now.
            return .none
        }
    }

    private mutating func waitOrExpire(_ registration: Registration, now: Date) -> Action {
        if now >= registration.expires {
            state = .finished
            return .expire(registration)
        }
        state = .waiting(registration)
        return .waitForNextPoll
    }
}
