import AccessEnabler
import Foundation
import PassHistory
import Testing
@testable import PassConsole

struct ClockOffsetTests {
    func exchange(at seconds: Double, serverAt server: Double?, durationMs: Double = 100) -> EntitlementEvent {
        EntitlementEvent(sequence: 0, timestamp: Date(timeIntervalSince1970: seconds), sessionID: UUID(), deviceID: "d",
            app: AppIdentity(bundleID: "com.a.b", teamID: "T"), requestorID: nil, mvpdID: nil,
            kind: .httpExchange(exchange: HTTPExchange(method: "GET", url: "u", parameters: [:], status: 200, responseBody: nil,
                failure: nil, durationMs: durationMs, serverDate: server.map { Date(timeIntervalSince1970: $0) })))
    }

    @Test func theMedianOfTheAnswersIsTheOffsetAndOneOutlierDoesNotMoveIt() throws {
        // The device is 2 days behind; one answer was slow (its date is 30 s off the midpoint).
        let events = [
            exchange(at: 1000, serverAt: 1000 + 172_800), exchange(at: 1010, serverAt: 1010 + 172_800),
            exchange(at: 1020, serverAt: 1020 + 172_800 + 30), exchange(at: 1030, serverAt: nil),
        ]
        let offset = try #require(ClockOffset.measure(events))
        #expect(offset.samples == 3)
        #expect(abs(offset.seconds - 172_800) < 1)
        #expect(offset.isWrong)
        #expect(offset.sentence.contains("behind the backend's"))
        // A two-day offset measured through a whole-second Date header still reads as two days.
        let truncated = try #require(ClockOffset.measure([exchange(at: 1000.6, serverAt: 1000 + 172_800, durationMs: 0)]))
        #expect(truncated.magnitude == Duration.words(172_800))
    }

    @Test func aRightClockIsSaidToAgreeAndNoAnswerMeansNoFigure() throws {
        let offset = try #require(ClockOffset.measure([exchange(at: 1000.4, serverAt: 1000)]))
        #expect(!offset.isWrong)
        #expect(offset.sentence.hasPrefix("The device's clock agrees"))
        #expect(ClockOffset.measure([exchange(at: 1000, serverAt: nil)]) == nil)
        // A device ahead by 10 minutes is wrong, and said to be ahead.
        let ahead = try #require(ClockOffset.measure([exchange(at: 1600, serverAt: 1000)]))
        #expect(ahead.isWrong && ahead.sentence.contains("ahead of the backend's"))
    }
}
