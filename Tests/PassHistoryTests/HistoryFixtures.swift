import AccessEnabler
import Foundation
@testable import PassHistory

/// A fresh directory under the system temp dir, removed when the value is released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("PassHistoryTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of the history file in this directory.
    var historyPath: String { url.appendingPathComponent("history.sqlite").path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Builds events for one session with increasing sequence numbers and timestamps.
struct EventFactory {
    var sessionID = UUID()
    var deviceID = "device-A"
    var app = AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234", platform: .iOS)
    var requestorID: String? = "REF30"
    var start = Date(timeIntervalSinceReferenceDate: 780_000_000.125)
    var sequence = 0

    mutating func make(_ kind: EntitlementEvent.Kind, mvpd: String? = nil, requestor: String?? = .none) -> EntitlementEvent {
        sequence += 1
        return EntitlementEvent(
            sequence: sequence, timestamp: start.addingTimeInterval(Double(sequence) * 0.5), sessionID: sessionID,
            deviceID: deviceID, app: app, requestorID: requestor ?? requestorID, mvpdID: mvpd, kind: kind)
    }

    /// A realistic first-login flow (eight events of six kinds).
    mutating func flow() -> [EntitlementEvent] {
        [
            make(.apiCall(name: "setRequestor", arguments: ["requestorID": "REF30"])),
            make(.stateChanged(flow: "requestor", from: "idle", to: "configuring")),
            make(.httpExchange(exchange: HTTPExchange(
                method: "GET", url: "http://127.0.0.1:8081/api/v1/config/REF30", parameters: [:], status: 200,
                responseBody: "{}", failure: nil, durationMs: 12.4))),
            make(.callback(callback: .setRequestorComplete(status: 1))),
            make(.storageChanged(domain: "TEAM1234", change: "authN token stored"), mvpd: "Cablevision"),
            make(.callback(callback: .setAuthenticationStatus(status: 1, errorCode: nil)), mvpd: "Cablevision"),
            make(.tracking(event: .authenticationDetection, data: ["YES", "Cablevision"]), mvpd: "Cablevision"),
            make(.error(code: "N000", message: "User not authorized"), mvpd: "Cablevision"),
        ]
    }
}

/// Runs `body` with a history in a fresh file of a fresh temp dir, removed afterwards.
func withHistory<T>(_ body: (HistoryDatabase) async throws -> T) async throws -> T {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    return try await body(try HistoryDatabase(path: directory.historyPath))
}

/// The first value `stream` yields, or nil after `seconds`.
func first<T: Sendable>(of stream: AsyncStream<T>, within seconds: Double) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result
    }
}

/// Waits until `condition` holds, checking every few milliseconds, for at most `seconds`.
func eventually(within seconds: Double = 5, _ condition: @Sendable () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}
