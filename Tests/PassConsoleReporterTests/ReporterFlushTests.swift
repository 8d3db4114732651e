import Foundation
import PassConsoleReporter
import Testing

/// `flush()` sends at once; `finish()` sends what is left and stops.
struct ReporterFlushTests {
    @Test func flushSendsWithoutWaitingForABatchToFillAndFinishStopsTheReporter() async throws {
        try await FakeConsole.with { fake, url in
            // Given a reporter that would wait 10 s for a batch to fill
            let reporter = ConsoleReporter(configuration: .init(console: url, app: .init(bundleID: "com.vendor.flush", teamID: "F1"),
                deviceID: "d", batchSize: 100, interval: 10))
            let start = ContinuousClock.now
            for i in 1...3 { reporter.call(.checkAuthorization, ["resource": "r\(i)"]) }
            // When the app flushes, the three go now, in one request
            #expect(await reporter.flush())
            #expect(ContinuousClock.now - start < .seconds(5), "flush did not wait for the 10 s batch window")
            #expect(reporter.counts == .init(sent: 3, queued: 0, dropped: 0, refused: 0, failures: 0))
            #expect(fake.received.map(\.lines.count) == [3])
            // A flush with nothing queued is done at once
            #expect(await reporter.flush())
            // finish() sends what is left, then the reporter takes nothing more
            reporter.callback(.setRequestorComplete(status: 1))
            await reporter.finish()
            #expect(reporter.counts.sent == 4)
            reporter.callback(.setRequestorComplete(status: 0))
            #expect(reporter.counts == .init(sent: 4, queued: 0, dropped: 0, refused: 0, failures: 0))
            await reporter.finish()
            #expect(fake.acceptedLines.count == 4)
        }
    }

    @Test func finishGivesUpAfterItsTimeoutWhenTheConsoleIsAway() async throws {
        let port = try await reserveFreePort()
        let reporter = ConsoleReporter(configuration: .init(console: URL(string: "http://127.0.0.1:\(port)")!,
            app: .init(bundleID: "com.vendor.away", teamID: "A1"), deviceID: "d", interval: 0.01,
            retry: .init(initialDelay: 0.05, maxDelay: 0.2)))
        reporter.call(.logout)
        await reporter.finish(timeout: 0.5)
        #expect(reporter.counts.queued == 1 && reporter.counts.sent == 0 && reporter.counts.failures >= 1)
        #expect(await reporter.flush() == false, "a stopped reporter with events left says so")
    }
}
