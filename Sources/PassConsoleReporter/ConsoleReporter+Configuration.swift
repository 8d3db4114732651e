import Foundation

extension ConsoleReporter {
    /// Where the reporter sends events and how. Every number is clamped into the range its documentation gives.
    public struct Configuration: Sendable {
        /// The console's base URL, e.g. `http://192.168.1.20:8080` (events go to `<console>/api/ingest`).
        public var console: URL
        /// The console's access token, sent as `Authorization: Bearer …`: needed once the console listens beyond
        /// loopback (`passconsole serve --host 0.0.0.0` prints it; a named operator's `pco_…` token works too).
        public var accessToken: String?
        /// The app, as the console groups its sessions.
        public var app: App
        /// The device ID the console shows and groups by (e.g. `UIDevice.current.identifierForVendor?.uuidString`).
        public var deviceID: String
        /// Events kept while the console cannot be reached, 1…1,000,000 (default 10,000); past it the oldest go and are
        /// counted.
        public var capacity: Int
        /// Events per request, 1…5,000 (default 200).
        public var batchSize: Int
        /// Seconds the first event after a quiet spell waits for others to share its request, 0…10 (default 0.25).
        public var interval: TimeInterval
        /// Seconds a request may take, 1…120 (default 10).
        public var requestTimeout: TimeInterval
        /// When to try again after a failure.
        public var retry: RetryPolicy
        /// Secrets are cut on the device (passwords entirely, tokens, signatures and SAML assertions to a prefix)
        /// unless this is false. The console cuts them again on ingest whatever this says.
        public var redactsSecrets: Bool

        public init(
            console: URL, accessToken: String? = nil, app: App, deviceID: String, capacity: Int = 10_000,
            batchSize: Int = 200, interval: TimeInterval = 0.25, requestTimeout: TimeInterval = 10,
            retry: RetryPolicy = RetryPolicy(), redactsSecrets: Bool = true
        ) {
            self.console = console
            self.accessToken = accessToken
            self.app = app
            self.deviceID = deviceID
            self.capacity = capacity
            self.batchSize = batchSize
            self.interval = interval
            self.requestTimeout = requestTimeout
            self.retry = retry
            self.redactsSecrets = redactsSecrets
        }

        static let capacityRange = 1...1_000_000
        static let batchSizeRange = 1...5_000
        static let intervalRange: ClosedRange<TimeInterval> = 0...10
        static let requestTimeoutRange: ClosedRange<TimeInterval> = 1...120

        /// The configuration with every number in its range.
        var clamped: Configuration {
            var copy = self
            copy.capacity = capacity.clamped(to: Self.capacityRange)
            copy.batchSize = batchSize.clamped(to: Self.batchSizeRange)
            copy.interval = interval.clamped(to: Self.intervalRange)
            copy.requestTimeout = requestTimeout.clamped(to: Self.requestTimeoutRange)
            copy.retry = retry.clamped
            return copy
        }
    }
}

extension Comparable {
    /// The value, or the nearest end of `range` when it lies outside (NaN becomes the lower end).
    func clamped(to range: ClosedRange<Self>) -> Self {
        if self > range.upperBound { return range.upperBound }
        if self >= range.lowerBound { return self }
        return range.lowerBound
    }
}
