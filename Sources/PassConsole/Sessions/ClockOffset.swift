import AccessEnabler
import Foundation

/// How far a session's device clock is from the backend's, measured on its HTTP exchanges: each answer's `Date`
/// header (``HTTPExchange/serverDate``) against the device's time at the exchange's midpoint. Field problems #25/#26:
/// tokens are judged by the device's clock, so a wrong date shows as random expiries or login loops.
struct ClockOffset: Equatable {
    /// Seconds the backend's clock is ahead of the device's (negative: behind); the median over the exchanges.
    var seconds: TimeInterval
    /// How many answers carried a date.
    var samples: Int

    /// The offset measured on `events`; nil when no answer carried a date.
    static func measure(_ events: [EntitlementEvent]) -> ClockOffset? {
        let offsets = events.compactMap { event -> TimeInterval? in
            guard case .httpExchange(let exchange) = event.kind, let server = exchange.serverDate else { return nil }
            // The event is stamped when the answer arrived; the server wrote its date about half-way through.
            return server.timeIntervalSince(event.timestamp.addingTimeInterval(-exchange.durationMs / 2000))
        }.sorted()
        guard !offsets.isEmpty else { return nil }
        return ClockOffset(seconds: offsets[offsets.count / 2], samples: offsets.count)
    }

    /// Beyond the SDK's tolerance (it warns with CFG100 past it too).
    var isWrong: Bool { abs(seconds) > AccessEnabler.clockSkewTolerance }

    /// The size of the offset in words: whole minutes past two minutes (a `Date` header truncates to the second,
    /// so a two-day offset measures as 1 d 23 h 59 min 59.4 s), whole seconds below.
    var magnitude: String {
        let size = abs(seconds)
        return Duration.words(size >= 120 ? (size / 60).rounded() * 60 : size.rounded())
    }

    /// `The device's clock is 2 d behind the backend's.` / `… agrees with the backend's (within 1 s).`
    var sentence: String {
        // `Date` headers have whole seconds: under 2 s is as close as can be told.
        guard abs(seconds) >= 2 else { return "The device's clock agrees with the backend's (within 1 s, \(samples) answers)." }
        let direction = seconds > 0 ? "behind" : "ahead of"
        return "The device's clock is \(magnitude) \(direction) the backend's (\(samples) answers)."
    }
}
