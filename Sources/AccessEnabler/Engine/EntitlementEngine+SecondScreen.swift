import Foundation
import PassProtocol

/// tvOS second screen (spec §7): a registration code, polling until someone signs in with it on another device.
///
/// `setSelectedProvider` creates the code (signed REST v1 call, spec §5.4) and reports it with `status(REGCODE)`;
/// ``pollTask`` then asks `tokens/authn` every ``AccessEnablerConfiguration/pollInterval`` until the sign-in shows
/// up (→ the token is fetched as after an iOS login: `setAuthenticationStatus(1)`), the code expires (→ status 0),
/// or the app cancels with `setSelectedProvider(nil)` (→ polling stops and the code is freed on the server).
/// There is never a `navigateToUrl` on tvOS.
extension EntitlementEngine {
    private typealias Machine = SecondScreenStateMachine

    /// Creates and shows a registration code for `mvpd`, then starts polling in the background.
    ///
    /// Runs in the operation queue (from `startLogin`); returns once the code is shown, so calls made after
    /// `setSelectedProvider` (a cancel) run while polling goes on.
    func startSecondScreen(mvpd: String) async {
        guard let requestor else { return }
        // An earlier attempt (getAuthentication restarting) stops at its next check and frees its code.
        pollTask?.cancel()
        pollTask = nil
        guard let credentials = tvosCredentials else {
            let message =
                "The tvOS registration code cannot be requested: setRequestor needs secret and publicKey on "
                + "tvOS (setRequestor(_:serviceProviders:secret:publicKey:)) to sign the second-screen calls."
            status(.REG500, message: message)
            authenticationFailed(mvpd: mvpd, code: .genericAuthentication, message: message)
            return
        }
        let client = restClient(
            requestorID: requestor.id, serviceProvider: requestor.serviceProvider, credentials: credentials)
        var machine = Machine()
        guard case .createRegcode = machine.start(mvpd: mvpd) else { return }
        let before = authentication
        var action: Machine.Action
        var failureCode = ErrorCode.genericAuthentication
        do {
            let registration = try await client.createRegcode(
                deviceID: deviceID, mvpdID: mvpd, ttl: configuration.regcodeTTL)
            action = machine.regcodeCreated(
                code: registration.code, expires: EpochMilliseconds.date(registration.expires))
        } catch {
            if case .unreachable = error { failureCode = .providerNotAvailable }
            action = machine.regcodeFailed("Registration code could not be fetched: \(Self.describe(error))")
        }
        // We have to check our state again since we just awaited.
        if authentication != before || self.requestor?.id != requestor.id, case .showCode = action {
            action = machine.cancelled()
        }
        switch action {
        case .showCode(let registration):
            advanceAuthentication { $0.codeShown(mvpd: registration.mvpd, code: registration.code) }
            let activation = client.activationURL
            let provider = requestor.mvpd(mvpd)?.displayName ?? mvpd
            status(
                .REGCODE,
                message:
                    "Go to \(activation) on another device and enter \(registration.code) to sign in with \(provider).",
                extra: [
                    "code": registration.code, "regcode": registration.code,
                    "expires": EpochMilliseconds.string(registration.expires), "activationURL": activation,
                ])
            let polling = machine
            pollTask = Task { await self.poll(polling, client: client) }
        case .fail(let reason):
            status(.REG500, message: reason)
            authenticationFailed(mvpd: mvpd, code: failureCode, message: reason)
        case .deleteCode(let code):
            freeRegcode(code, client: client)
        case .none, .createRegcode, .poll, .confirmCode, .waitForNextPoll, .fetchToken, .expire:
            break
        }
    }

    /// The body of ``pollTask``: waits, polls, and performs the machine's actions until the attempt ends.
    ///
    /// After every await it checks that the engine still shows this code: a cancel, a new `getAuthentication` or a
    /// logout changes ``authentication`` (and cancels this task), and the attempt then ends by freeing the code.
    private func poll(_ start: Machine, client: RESTClient) async {
        var machine = start
        var action = Machine.Action.waitForNextPoll
        while true {
            switch action {
            case .waitForNextPoll:
                try? await Task.sleep(for: configuration.pollInterval)
                action = isShowing(machine.registration) ? machine.timerFired(now: now()) : machine.cancelled()
            case .poll(let registration):
                let answer: Machine.PollAnswer
                do {
                    switch try await client.authNToken(deviceID: deviceID) {
                    case .signedIn: answer = .signedIn
                    case .notSignedIn: answer = .notSignedIn
                    case .gone: answer = .tokenGone
                    }
                } catch {
                    answer = .failed(Self.describe(error))
                }
                guard isShowing(registration) else {
                    action = machine.cancelled()
                    continue
                }
                if case .failed(let reason) = answer {
                    fail("poll", "Polling for the sign-in with \(registration.code) failed: \(reason)")
                }
                action = machine.pollAnswered(answer, now: now())
            case .confirmCode(let registration):
                // A failed check counts as live: the local clock still ends the attempt at the code's expiry.
                let live = (try? await client.regcodeIsLive(registration.code)) ?? true
                action = isShowing(registration) ? machine.codeChecked(live: live, now: now()) : machine.cancelled()
            case .fetchToken(let registration):
                // Through the operation queue, in order with the app's calls; a cancel queued first wins.
                enqueue { await self.finishSecondScreen(registration) }
                return
            case .expire(let registration):
                authenticationFailed(
                    mvpd: registration.mvpd, code: .genericAuthentication,
                    message:
                        "The registration code \(registration.code) expired at \(TokenDate.format(registration.expires)) "
                        + "before anyone signed in with it. Call getAuthentication for a new code.")
                return
            case .deleteCode(let code):
                freeRegcode(code, client: client)
                return
            case .none, .createRegcode, .showCode, .fail:
                return
            }
        }
    }

    /// Someone signed in with the code: fetch and store the authN token (`sessionDevice` finds the session the
    /// REST sign-in opened, both being keyed by requestor and device), then `setAuthenticationStatus(1)`.
    private func finishSecondScreen(_ registration: Machine.Registration) async {
        guard authenticationMachine.isPolling(mvpd: registration.mvpd, code: registration.code) else { return }
        await fetchAuthNToken(mvpd: registration.mvpd)
    }

    /// Whether this task is live and the engine still shows `registration`'s code.
    private func isShowing(_ registration: Machine.Registration?) -> Bool {
        guard let registration, !Task.isCancelled else { return false }
        return authenticationMachine.isPolling(mvpd: registration.mvpd, code: registration.code)
    }

    /// Frees a code nobody will use. Runs in a fresh task: the poll task is usually cancelled by now, and a
    /// cancelled task's requests fail at once.
    private func freeRegcode(_ code: String, client: RESTClient) {
        Task {
            do throws(RESTClient.Failure) {
                try await client.deleteRegcode(code)
                logger.debug("registration code \(code) freed")
            } catch {
                fail("regcode", "The registration code \(code) could not be freed: \(Self.describe(error))")
            }
        }
    }

    private func restClient(requestorID: String, serviceProvider: URL, credentials: (secret: String, publicKey: String))
        -> RESTClient
    {
        RESTClient(
            base: RESTClient.origin(of: serviceProvider),
            credentials: .init(requestorID: requestorID, publicKey: credentials.publicKey, secret: credentials.secret),
            transport: makeTransport(), now: configuration.now)
    }

    private static func describe(_ failure: RESTClient.Failure) -> String {
        switch failure {
        case .unreachable(let reason): "no answer (\(reason))"
        case .status(let code, let details, _): "HTTP \(code)\(details.map { ": \($0)" } ?? "")"
        case .malformed(let reason): "unreadable answer (\(reason))"
        }
    }
}
