import Foundation
import PassProtocol

/// tvOS second screen (spec §7): a registration code, polling until someone signs in with it on another device.
///
/// `setSelectedProvider` creates the code (signed REST v1 call, spec §5.4; on REST API v2 an authentication session,
/// through ``SecondScreenBackend``) and reports it with `status(REGCODE)`;
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
        let client: any SecondScreenBackend
        if onRESTv2 {
            // REST API v2: the access token signs the calls; no secret or public key needed.
            var v2 = v2Client(for: mvpd)
            v2.shielded = true
            client = v2
        } else {
            guard let credentials = tvosCredentials else {
                let message =
                    "The tvOS registration code cannot be requested: setRequestor needs secret and publicKey on "
                    + "tvOS (setRequestor(_:serviceProviders:secret:publicKey:)) to sign the second-screen calls."
                status(.REG500, message: message)
                authenticationFailed(mvpd: mvpd, code: .genericAuthentication, message: message)
                return
            }
            client = restClient(requestorID: requestor.id, serviceProvider: requestor.serviceProvider, credentials: credentials)
        }
        var machine = Machine()
        guard case .createRegcode = machine.start(mvpd: mvpd) else { return }
        let before = authentication
        var action: Machine.Action
        var failureCode = ErrorCode.genericAuthentication
        var signInURL: String?
        do {
            switch try await client.createCode(deviceID: deviceID, mvpdID: mvpd, ttl: configuration.regcodeTTL) {
            case .code(let code, let expires, let url):
                signInURL = url
                action = machine.regcodeCreated(code: code, expires: expires)
            case .alreadyAuthenticated:
                // v2: the session answered authorize (a profile exists): no code, the profile at once.
                _ = machine.cancelled()
                await finishRESTv2Login(code: nil, mvpd: mvpd)
                return
            }
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
            var extra = [
                "code": registration.code, "regcode": registration.code,
                "expires": EpochMilliseconds.string(registration.expires), "activationURL": activation,
            ]
            // v2: where a second screen signs in with the code directly (/api/v2/authenticate/{requestor}/{code}).
            if let signInURL { extra["url"] = signInURL }
            status(
                .REGCODE,
                message:
                    "Go to \(activation) on another device and enter \(registration.code) to sign in with \(provider).",
                extra: extra)
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
    private func poll(_ start: Machine, client: any SecondScreenBackend) async {
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
                    answer = try await client.poll(code: registration.code, deviceID: deviceID)
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
                let live = (try? await client.isLive(code: registration.code)) ?? true
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
    /// REST sign-in opened, both being keyed by requestor and device), then `setAuthenticationStatus(1)`. On v2: the
    /// profile the code's sign-in made.
    private func finishSecondScreen(_ registration: Machine.Registration) async {
        guard authenticationMachine.isPolling(mvpd: registration.mvpd, code: registration.code) else { return }
        if onRESTv2 {
            await finishRESTv2Login(code: registration.code, mvpd: registration.mvpd)
        } else {
            await fetchAuthNToken(mvpd: registration.mvpd)
        }
    }

    /// Whether this task is live and the engine still shows `registration`'s code.
    private func isShowing(_ registration: Machine.Registration?) -> Bool {
        guard let registration, !Task.isCancelled else { return false }
        return authenticationMachine.isPolling(mvpd: registration.mvpd, code: registration.code)
    }

    /// Frees a code nobody will use. Runs in a fresh task: the poll task is usually cancelled by now, and a
    /// cancelled task's requests fail at once.
    private func freeRegcode(_ code: String, client: any SecondScreenBackend) {
        Task {
            do throws(SDKClient.Failure) {
                if try await client.free(code: code) {
                    logger.debug("registration code \(code) freed")
                } else {
                    logger.debug("REST API v2 has no call to free a code: \(code) expires at its notAfter")
                }
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
