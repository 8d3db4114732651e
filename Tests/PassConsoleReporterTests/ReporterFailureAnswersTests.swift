import AccessEnabler
import Foundation
import PassConsoleReporter
import PassTestSupport
import Testing

/// What the reporter does with a console that fails: 5xx and 429 are tried again, later each time (exponential
/// back-off with jitter, bounded) and nothing is lost; a refusal (another 4xx) is tried a bounded number of times,
/// then counted, said, and reported to the console — the rest of the queue goes on.
struct ReporterFailureAnswersTests {
    static let app = ConsoleReporter.App(bundleID: "com.vendor.failing", teamID: "FAIL1", platform: .iOS)

    static func reporter(_ console: URL, retry: ConsoleReporter.RetryPolicy, batchSize: Int = 50) -> ConsoleReporter {
        ConsoleReporter(configuration: .init(console: console, app: app, deviceID: "failing-device", batchSize: batchSize,
            interval: 0.2, retry: retry))
    }

    /// The sequence numbers of NDJSON lines.
    static func sequences(_ lines: [String]) -> [Int] {
        lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["sequence"] as? Int
        }
    }

    @Test func serverErrorsAreTriedAgainLaterEachTimeAndNothingIsLost() async throws {
        let failures: [FakeConsole.Answer] = [
            .error(500, "internal", "The history could not be written."), .error(503, "unavailable", "Starting."),
            .error(500, "internal", "again"), .error(502, "bad_gateway", "nginx"),
        ]
        try await FakeConsole.with(script: failures) { fake, url in
            let policy = ConsoleReporter.RetryPolicy(initialDelay: 0.1, maxDelay: 0.8, jitter: 0.5)
            let reporter = Self.reporter(url, retry: policy)
            for i in 1...20 { reporter.call(.checkAuthorization, ["resource": "r\(i)"]) }
            #expect(await waitUntil { reporter.counts.sent == 20 })
            let received = fake.received
            // Four failed tries, then one that got through with all 20 events, in order, once
            #expect(received.map(\.status) == [500, 503, 500, 502, 200])
            #expect(Self.sequences(fake.acceptedLines) == Array(1...20))
            #expect(received.allSatisfy { Self.sequences($0.lines) == Array(1...20) }, "each try sends the same batch")
            // Each wait at least the back-off's lower bound, doubling: 0.05, 0.1, 0.2, 0.4 s (jitter takes off half at most)
            let waits = zip(received, received.dropFirst()).map { pair in
                let gap = pair.1.at - pair.0.at
                return Double(gap.components.seconds) + Double(gap.components.attoseconds) / 1e18
            }
            let lowest = (1...4).map { policy.delay(afterFailures: $0, random: 0.999_999) }
            #expect(zip(waits, lowest).allSatisfy { $0 >= $1 - 0.005 }, "waits \(waits), lower bounds \(lowest)")
            #expect(await waitUntil { reporter.counts.sent == 20 })
            #expect(reporter.counts == .init(sent: 20, queued: 0, dropped: 0, refused: 0, failures: 0))
            #expect(reporter.lastError == nil)
            #expect(received.allSatisfy { $0.dropped == "0" && $0.contentType == "application/x-ndjson" && $0.authorization == nil })
            await reporter.finish()
        }
    }

    @Test func whileFailingTheLastErrorSaysWhatTheConsoleSaid() async throws {
        let failures = Array(repeating: FakeConsole.Answer.error(500, "internal", "The history could not be written."), count: 3)
        try await FakeConsole.with(script: failures) { fake, url in
            let reporter = Self.reporter(url, retry: ConsoleReporter.RetryPolicy(initialDelay: 0.05, maxDelay: 0.1))
            reporter.callback(.presentTvProviderDialog)
            #expect(await waitUntil { reporter.counts.failures >= 1 })
            #expect(reporter.lastError?.contains("500 (internal: The history could not be written.)") == true,
                "\(reporter.lastError ?? "nil")")
            #expect(await waitUntil { reporter.counts.sent == 1 })
            #expect(reporter.counts.failures == 0 && reporter.lastError == nil)
            #expect(fake.received.count == 4)
            await reporter.finish()
        }
    }

    @Test func tooManyRequestsWaitsAsLongAsTheConsoleAsks() async throws {
        var busy = FakeConsole.Answer.error(429, "too_many", "Slow down.")
        busy.headers = [("Retry-After", "1")]
        try await FakeConsole.with(script: [busy]) { fake, url in
            let reporter = Self.reporter(url, retry: ConsoleReporter.RetryPolicy(initialDelay: 0.01, maxDelay: 5))
            reporter.callback(.dismissTvProviderDialog)
            #expect(await waitUntil { reporter.counts.sent == 1 })
            let times = fake.received.map(\.at)
            try #require(times.count == 2)
            #expect(times[1] - times[0] >= .milliseconds(990), "Retry-After: 1 honoured")
            await reporter.finish()
        }
    }

    @Test func aRefusedBatchIsTriedABoundedNumberOfTimesThenCountedAndReportedAndTheRestGoesOn() async throws {
        let refusal = FakeConsole.Answer.error(400, "bad_batch", "line 1: missing field 'kind'")
        try await FakeConsole.with(script: [refusal, refusal, refusal]) { fake, url in
            let reporter = Self.reporter(url, retry: ConsoleReporter.RetryPolicy(initialDelay: 0.02, maxDelay: 0.1, refusedAttempts: 3))
            // Given five events the console refuses, three times (the bound)
            for i in 1...5 { reporter.call(.getMetadata, ["opCode": "\(i)"]) }
            #expect(await waitUntil { reporter.counts.refused == 5 && reporter.counts.sent == 1 })
            // Then they were sent three times, not more, and are counted as refused with the console's reason
            let received = fake.received
            #expect(received.prefix(3).allSatisfy { $0.status == 400 && Self.sequences($0.lines) == Array(1...5) })
            #expect(received.filter { Self.sequences($0.lines).contains(1) }.count == 3)
            #expect(reporter.lastRefusal == "the console answered 400 (bad_batch: line 1: missing field 'kind'); 5 events set aside")
            // …and the console is told: the next request reports the 5 in X-PassConsole-Dropped, with a note in the session
            let report = try #require(received.dropFirst(3).first)
            #expect(report.dropped == "5")
            let note = try EntitlementEvent.Wire.decoder().decode(EntitlementEvent.self, from: Data(try #require(report.lines.first).utf8))
            guard case .error(let code, let message) = note.kind else {
                Issue.record("expected the reporter's note, got \(note.kind)")
                return
            }
            #expect(code == "reporter.refused" && message.contains("refused 5 events") && message.contains("bad_batch"))
            #expect(note.sequence == 6 && note.sessionID == reporter.sessionID)
            // The queue goes on: later events arrive, and the 5 are not reported twice
            reporter.call(.logout)
            #expect(await waitUntil { reporter.counts.sent == 2 })
            #expect(fake.received.last?.dropped == "0")
            #expect(reporter.counts == .init(sent: 2, queued: 0, dropped: 0, refused: 5, failures: 0))
            await reporter.finish()
        }
    }

    @Test func aBodyTooLargeIsSentAgainInSmallerBatches() async throws {
        let tooLarge = FakeConsole.Answer.error(413, "body_too_large", "The body is larger than 1 MiB.")
        try await FakeConsole.with(script: [tooLarge]) { fake, url in
            let reporter = Self.reporter(url, retry: ConsoleReporter.RetryPolicy(initialDelay: 0.02, maxDelay: 0.1), batchSize: 8)
            for i in 1...8 { reporter.call(.getAuthorization, ["resource": "r\(i)"]) }
            #expect(await waitUntil { reporter.counts.sent == 8 })
            #expect(fake.received.map(\.lines.count) == [8, 4, 4])
            #expect(Self.sequences(fake.acceptedLines) == Array(1...8))
            #expect(reporter.counts.refused == 0)
            await reporter.finish()
        }
    }
}
