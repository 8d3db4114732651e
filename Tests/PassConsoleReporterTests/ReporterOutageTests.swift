import AccessEnabler
import Foundation
import PassConsoleReporter
import Testing

/// The console away: events wait on the device and arrive once it is back; past the queue's bound the oldest go, and
/// the console is told how many.
struct ReporterOutageTests {
    static let app = ConsoleReporter.App(bundleID: "com.vendor.outage", teamID: "OUTAGE1", platform: .tvOS)

    static func reporter(console port: UInt16, capacity: Int = 10_000) -> ConsoleReporter {
        ConsoleReporter(configuration: .init(
            console: URL(string: "http://127.0.0.1:\(port)")!, app: app, deviceID: "outage-device", capacity: capacity,
            batchSize: 7, interval: 0.02, retry: ConsoleReporter.RetryPolicy(initialDelay: 0.05, maxDelay: 0.3)))
    }

    /// `count` calls, `getAuthorization` of `r1`, `r2`, …
    static func report(_ count: Int, to reporter: ConsoleReporter) {
        for i in 1...count { reporter.call(.getAuthorization, ["resource": "r\(i)"]) }
    }

    @Test func eventsMadeWhileTheConsoleIsDownArriveOnceItIsUp() async throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        // Given a reporter whose console is not running (its port chosen beforehand: nothing listens there)
        let port = try await reserveFreePort()
        let reporter = Self.reporter(console: port)
        Self.report(30, to: reporter)
        // When it has tried and failed (connection refused), the events wait on the device
        #expect(await waitUntil { reporter.counts.failures >= 2 })
        #expect(reporter.counts.queued == 30 && reporter.counts.sent == 0)
        #expect(reporter.lastError?.contains("cannot reach the console") == true, "\(reporter.lastError ?? "nil")")
        #expect(await reporter.flush() == false, "a flush while the console is away says it did not get through")
        // Then once the console starts on that port, every event arrives, in order, once
        let console = try await RealConsole.start(port: port, root: root)
        var stored: [EntitlementEvent] = []
        #expect(try await waitUntil {
            stored = try await console.events(session: reporter.sessionID)
            return stored.count >= 30
        })
        #expect(stored.map(\.sequence) == Array(1...30))
        #expect(stored.compactMap { if case .apiCall(_, let arguments) = $0.kind { arguments["resource"] } else { nil } }
            == (1...30).map { "r\($0)" })
        #expect(stored.allSatisfy { $0.app.platform == .tvOS && $0.app.bundleID == "com.vendor.outage" })
        // The console stores a batch before its answer reaches the reporter: wait for the reporter to hear it too.
        #expect(await waitUntil { reporter.counts.sent == 30 })
        #expect(reporter.counts == .init(sent: 30, queued: 0, dropped: 0, refused: 0, failures: 0))
        #expect(reporter.lastError == nil)
        #expect(try await console.ingestDropped() == 0)
        await reporter.finish()
        await console.stop()
    }

    @Test func pastTheQueuesBoundTheOldestGoAndTheConsoleIsToldHowMany() async throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        // Given a reporter holding at most 10 events, its console away
        let port = try await reserveFreePort()
        let reporter = Self.reporter(console: port, capacity: 10)
        // When 25 are made
        Self.report(25, to: reporter)
        // Then the newest 10 wait and the oldest 15 are counted as dropped
        #expect(reporter.counts.queued == 10 && reporter.counts.dropped == 15)
        #expect(await waitUntil { reporter.counts.failures >= 1 })
        // …and once the console is up, the 10 arrive and the console counts the 15 it never got
        let console = try await RealConsole.start(port: port, root: root)
        var stored: [EntitlementEvent] = []
        #expect(try await waitUntil {
            stored = try await console.events(session: reporter.sessionID)
            return stored.count >= 10
        })
        #expect(stored.map(\.sequence) == Array(16...25), "the oldest went, the newest stayed")
        #expect(try await waitUntil { try await console.ingestDropped() == 15 })
        #expect(try await console.ingestDropped() == 15)
        #expect(await waitUntil { reporter.counts.sent == 10 }, "the reporter hears the console's answer after it stored the batch")
        #expect(reporter.counts == .init(sent: 10, queued: 0, dropped: 15, refused: 0, failures: 0))
        await reporter.finish()
        await console.stop()
    }

    @Test func aConsoleBeyondLoopbackTakesTheReporterWithItsAccessTokenAndRefusesOneWithout() async throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let console = try await RealConsole.start(accessToken: "reporter-test-token", root: root)
        func reporter(token: String?) -> ConsoleReporter {
            ConsoleReporter(configuration: .init(console: console.baseURL, accessToken: token, app: Self.app, deviceID: "d",
                interval: 0.01, retry: ConsoleReporter.RetryPolicy(initialDelay: 0.02, maxDelay: 0.1, refusedAttempts: 2)))
        }
        // With the token: the events arrive
        let allowed = reporter(token: "reporter-test-token")
        allowed.callback(.setRequestorComplete(status: 1))
        #expect(await allowed.flush())
        #expect(try await console.events(session: allowed.sessionID).compactMap(\.callback) == [.setRequestorComplete(status: 1)])
        // Without it: refused twice (its bound), then counted as refused and said why; nothing is stored
        let refused = reporter(token: nil)
        refused.callback(.setRequestorComplete(status: 1))
        #expect(await waitUntil { refused.counts.refused >= 1 })
        #expect(refused.lastRefusal?.hasPrefix("the console answered 401 (token_required") == true, "\(refused.lastRefusal ?? "nil")")
        #expect(try await console.events(session: refused.sessionID).isEmpty)
        await allowed.finish()
        await refused.finish(timeout: 0.5)
        await console.stop()
    }
}
