import Foundation

extension ConsoleReporter {
    /// When the reporter tries again after a failed request: exponential back-off with jitter, bounded.
    ///
    /// After the n-th failure in a row it waits `min(maxDelay, initialDelay × 2^(n-1))`, less a random part of up to
    /// `jitter` of that (so many devices that lost the same console do not all come back in the same instant); a
    /// `Retry-After` the console sent is honoured up to `maxDelay`. A console that is down, answers 5xx, 408 or 429 is
    /// tried again for as long as it takes (the queue's bound keeps memory bounded meanwhile); a batch the console
    /// refuses with another 4xx is tried ``refusedAttempts`` times, then counted as refused and set aside.
    public struct RetryPolicy: Sendable, Equatable {
        /// Seconds before the first retry, 0.01…60 (default 0.5).
        public var initialDelay: TimeInterval
        /// The longest wait, in seconds, `initialDelay`…3600 (default 30).
        public var maxDelay: TimeInterval
        /// The share of each wait taken off at random, 0…1 (default 0.5: a wait lies between half and all of it).
        public var jitter: Double
        /// How often a batch the console refuses (a 4xx other than 408 and 429) is sent before it is set aside, 1…10
        /// (default 3).
        public var refusedAttempts: Int

        public init(initialDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 30, jitter: Double = 0.5, refusedAttempts: Int = 3) {
            self.initialDelay = initialDelay
            self.maxDelay = maxDelay
            self.jitter = jitter
            self.refusedAttempts = refusedAttempts
        }

        static let initialDelayRange: ClosedRange<TimeInterval> = 0.01...60
        static let maxDelayLimit: TimeInterval = 3600
        static let jitterRange: ClosedRange<Double> = 0...1
        static let refusedAttemptsRange = 1...10

        var clamped: RetryPolicy {
            let initial = initialDelay.clamped(to: Self.initialDelayRange)
            return RetryPolicy(
                initialDelay: initial, maxDelay: maxDelay.clamped(to: initial...Self.maxDelayLimit),
                jitter: jitter.clamped(to: Self.jitterRange), refusedAttempts: refusedAttempts.clamped(to: Self.refusedAttemptsRange))
        }

        /// The wait before the next try after `failures` failures in a row (1 or more); `random` in 0..<1 picks the
        /// jitter; `retryAfter` is the console's `Retry-After`, if it sent one.
        public func delay(afterFailures failures: Int, random: Double, retryAfter: TimeInterval? = nil) -> TimeInterval {
            let exponent = Double(max(0, min(failures, 64) - 1))
            let full = min(maxDelay, initialDelay * pow(2, exponent))
            let wait = full * (1 - jitter * random.clamped(to: 0...1))
            guard let retryAfter, retryAfter > wait else { return wait }
            return min(retryAfter, maxDelay)
        }
    }
}
