import AccessEnabler
import Foundation
import Locking
import PassSimulator

/// What the simulated app tells the flow runner.
enum FlowSignal: Sendable {
    /// A delegate (or status) callback, already printed.
    case callback(EntitlementCallback)
    /// The app cannot go on (no MVPD to pick, the login page refused the credentials, …), already printed.
    case failure(String)
    /// `--timeout` passed.
    case timedOut
}

/// Where the simulated app's callbacks and failures go during a run: each callback is printed as one JSON line and
/// handed to the flow runner; a failure is printed as an error line and ends the run.
///
/// Callbacks arrive on the SDK's delegate queue, one at a time and in order, so lines print in callback order.
final class FlowRelay: Sendable {
    private let target = Mutex<(output: FlowOutput, signals: AsyncStream<FlowSignal>.Continuation)?>(nil)

    /// Where the next callbacks go (set by the run before its first call).
    func connect(_ output: FlowOutput, _ signals: AsyncStream<FlowSignal>.Continuation) {
        target.withLock { $0 = (output, signals) }
    }

    func callback(_ callback: EntitlementCallback) {
        guard let target = target.withLock({ $0 }) else { return }
        target.output.callback(callback)
        target.signals.yield(.callback(callback))
    }

    func fail(_ failure: SimulatedApp.Failure) {
        guard let target = target.withLock({ $0 }) else { return }
        let message = Self.message(failure)
        target.output.error(message)
        target.signals.yield(.failure(message))
    }

    /// The error line for a failure, naming the flag that would have answered.
    static func message(_ failure: SimulatedApp.Failure) -> String {
        switch failure {
        case .noProviderChosen(let offered):
            "The SDK shows the provider picker but no --mvpd was given (offered: \(offered.joined(separator: ", ")))."
        case .noCredentials: "The SDK opened the MVPD's login page but no --user and --password were given."
        case .signInFailed(let message): "Login page: \(message)"
        case .logoutFailed(let message): "Logout page: \(message)"
        case .noLoginPending: "No login page is showing."
        }
    }
}

/// stdout, one JSON line per callback, event or error; whole lines only, whichever thread writes.
final class FlowOutput: @unchecked Sendable {
    private let lock = NSLock()
    private let encoder: JSONEncoder
    private var eventCount = 0

    init() {
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
    }

    /// `{"callback": name, <parameter>: value, …}`: the callback's own Codable form.
    func callback(_ callback: EntitlementCallback) { write(callback) }

    /// `{"event": {…}}`: one SDK event (`--events`).
    func event(_ event: EntitlementEvent) {
        write(EventLine(event: event))
        lock.withLock { eventCount += 1 }
    }

    /// `{"error": message}`: why the flow cannot go on.
    func error(_ message: String) { write(["error": message]) }

    /// How many events were printed (the runner waits for this to settle before exiting).
    var eventsPrinted: Int { lock.withLock { eventCount } }

    private func write(_ value: some Encodable) {
        lock.withLock {
            guard var data = try? encoder.encode(value) else { return }
            data.append(0x0A)
            FileHandle.standardOutput.write(data)
        }
    }

    private struct EventLine: Encodable {
        var event: EntitlementEvent
    }
}
