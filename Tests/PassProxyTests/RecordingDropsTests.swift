import Foundation
import Locking
import MicroHTTP
import PassEvents
import PassRecording
import Testing

/// Nothing a recorder drops goes uncounted: past its queue's bound the oldest exchanges go, and the count reaches the
/// sink (and from there the console's dropped count), beside the events that did arrive. Found by the benchmark:
/// a backend answering 40k requests/s kept 217k of 580k exchanges and the console said nothing was dropped.
@Suite struct RecordingDropsTests {
    /// A sink that holds its first event until let go (the recording thread waits there while exchanges pile up).
    final class HeldSink: EventSink, @unchecked Sendable {
        let state = Mutex((emitted: 0, lost: 0))
        let gate = DispatchSemaphore(value: 0)
        let held = Mutex(true)

        func emit(_ event: EntitlementEvent) {
            if held.withLock({ held in defer { held = false }; return held }) { gate.wait() }
            state.withLock { $0.emitted += 1 }
        }

        func lost(_ count: Int) { state.withLock { $0.lost += count } }
        var counts: (emitted: Int, lost: Int) { state.withLock { $0 } }
    }

    static func waitFor(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { return }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func everyExchangePastTheQueuesBoundIsCountedAsLostAndTheRestArrive() async throws {
        let sink = HeldSink()
        let recorder = ExchangeRecorder(.proxy, sink: sink, queueCapacity: 10)
        let request = Request(method: "GET", path: "/api/v1/config/REF30", queryItems: [("deviceId", "device-1")], remoteAddress: "127.0.0.1")
        let response = Response.json(data: Data("{}".utf8))
        // The first exchange reaches the sink and holds the recording thread there.
        recorder.record(request, response, started: .now)
        try await Self.waitFor { sink.held.withLock { !$0 } }
        for _ in 0..<100 { recorder.record(request, response, started: .now) }
        #expect(recorder.droppedCount == 90)
        sink.gate.signal()
        try await Self.waitFor { sink.counts.emitted + sink.counts.lost == 101 }
        #expect(sink.counts.emitted == 11)
        #expect(sink.counts.lost == 90)
    }

    @Test func aRelayHandsOnTheCountOfWhatItDroppedBeforeItsTargetCame() {
        let relay = RelaySink(capacity: 2)
        let target = HeldSink()
        target.held.withLock { $0 = false }
        let event = EntitlementEvent(
            sequence: 1, timestamp: Date(), sessionID: UUID(), deviceID: "d", app: AppIdentity(bundleID: "b", teamID: "", platform: .iOS),
            requestorID: nil, mvpdID: nil, kind: .apiCall(method: .checkAuthentication, arguments: [:]))
        for _ in 0..<5 { relay.emit(event) }
        relay.lost(4)
        relay.attach(target)
        #expect(target.counts.emitted == 2)
        #expect(target.counts.lost == 3 + 4)
        relay.lost(1)
        #expect(target.counts.lost == 8)
    }
}

extension RecordingDropsTests {
    @Test func aReporterTellsTheConsoleWhatItsSourceLostWithItsOwnDrops() {
        let reporter = EventReporter(console: URL(string: "http://127.0.0.1:9")!, capacity: 10)
        reporter.lost(5)
        reporter.lost(Int.max)
        #expect(reporter.droppedCount == Int.max, "a counter saturates, never traps")
    }
}
