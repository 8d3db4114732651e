import Foundation
import PassProtocol

/// What the tvOS second screen needs from a wire (design note §4): a code for the device, a poll for the sign-in
/// made with it, whether the code is still live, and freeing it. ``RESTClient`` (REST v1, HMAC-signed) and
/// ``V2Client`` (REST API v2 sessions and profiles) conform; the engine's polling and its machine are the same for
/// both.
protocol SecondScreenBackend: Sendable {
    /// Where a person enters the code (the backend's `/activate`), for `status(REGCODE)`.
    var activationURL: String { get }
    /// A code for this device and MVPD, or ``SecondScreenStart/alreadyAuthenticated`` (v2: the session answered
    /// `authorize`: a profile exists).
    nonisolated(nonsending) func createCode(deviceID: String, mvpdID: String, ttl: Int) async throws(SDKClient.Failure) -> SecondScreenStart
    /// One poll: someone signed in with the code, nobody yet, or (v1) an expired sign-in / (v2) a session gone.
    nonisolated(nonsending) func poll(code: String, deviceID: String) async throws(SDKClient.Failure) -> SecondScreenStateMachine.PollAnswer
    /// Whether the code is still live (after a ``SecondScreenStateMachine/PollAnswer/tokenGone``).
    nonisolated(nonsending) func isLive(code: String) async throws(SDKClient.Failure) -> Bool
    /// Frees a code nobody will use; `false` when the wire has no such call (v2: the code ends at its `notAfter`).
    nonisolated(nonsending) func free(code: String) async throws(SDKClient.Failure) -> Bool
}

/// How a second-screen attempt starts.
enum SecondScreenStart: Sendable, Equatable {
    /// A code to show until `expires`; `url`: where the second screen signs in with it directly (v2's authenticate
    /// URL), when the wire has one.
    case code(String, expires: Date, url: String?)
    /// The device is signed in already: no code.
    case alreadyAuthenticated
}

extension RESTClient: SecondScreenBackend {
    nonisolated(nonsending) func createCode(deviceID: String, mvpdID: String, ttl: Int) async throws(Failure) -> SecondScreenStart {
        let registration = try await createRegcode(deviceID: deviceID, mvpdID: mvpdID, ttl: ttl)
        return .code(registration.code, expires: EpochMilliseconds.date(registration.expires), url: nil)
    }

    nonisolated(nonsending) func poll(code: String, deviceID: String) async throws(Failure) -> SecondScreenStateMachine.PollAnswer {
        switch try await authNToken(deviceID: deviceID) {
        case .signedIn: .signedIn
        case .notSignedIn: .notSignedIn
        case .gone: .tokenGone
        }
    }

    nonisolated(nonsending) func isLive(code: String) async throws(Failure) -> Bool { try await regcodeIsLive(code) }

    nonisolated(nonsending) func free(code: String) async throws(Failure) -> Bool {
        try await deleteRegcode(code)
        return true
    }
}

extension V2Client: SecondScreenBackend {
    var activationURL: String { origin.absoluteString + "/activate" }

    /// `POST sessions` for the picked MVPD, ending at the backend's `/activate/done`: its code is the registration
    /// code (rest-api-v2.md §5.0: "synonymous with former term used registration code").
    nonisolated(nonsending) func createCode(deviceID: String, mvpdID: String, ttl: Int) async throws(Failure) -> SecondScreenStart {
        let session = try await createSession(mvpd: mvpdID, redirectURL: origin.absoluteString + "/activate/done")
        switch session.actionName {
        case "authenticate":
            guard let code = session.code, let expires = session.notAfter.flatMap(EpochMilliseconds.date) else {
                throw .malformed("the session answer has no code or notAfter")
            }
            return .code(code, expires: expires, url: session.url.map(absolute))
        case "authorize":
            return .alreadyAuthenticated
        default:
            throw .malformed("the session answered \(session.actionName) (missing: \((session.missingParameters ?? []).joined(separator: ", ")))")
        }
    }

    /// `GET profiles/code/{code}`: a profile is a sign-in, `{}` not yet; a session gone is ``tokenGone`` (then
    /// ``isLive(code:)`` decides).
    nonisolated(nonsending) func poll(code: String, deviceID: String) async throws(Failure) -> SecondScreenStateMachine.PollAnswer {
        do {
            return try await profile(code: code).isEmpty ? .notSignedIn : .signedIn
        } catch {
            if case .status(_, _, let reason?) = error, reason == "invalid_authentication_session" || reason == "invalid_parameter_code" {
                return .tokenGone
            }
            throw error
        }
    }

    nonisolated(nonsending) func isLive(code: String) async throws(Failure) -> Bool { try await sessionIsLive(code: code) }

    nonisolated(nonsending) func free(code: String) async throws(Failure) -> Bool { false }
}
