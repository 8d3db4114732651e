import Foundation

extension HTTPExchange {
    /// The fields of an exchange a network list shows: method, URL, status, duration and failure, without the
    /// parameters, headers and body.
    ///
    /// The one summary of an ``HTTPExchange``: ``HTTPExchange/summary`` takes it from a decoded exchange, and the
    /// history writes it into each event's stored view at ingest (`EventView` in PassHistory), so pages and the live
    /// feed send it without decoding the event again.
    public struct Summary: Codable, Sendable, Equatable {
        /// The request method (`GET`, `POST`).
        public var method: String
        /// The request URL (its query redacted as the exchange's is).
        public var url: String
        /// The status code, or nil when no answer came.
        public var status: Int?
        /// How long the exchange took, in milliseconds.
        public var durationMs: Double
        /// Why no answer came (timeout, refused), if so.
        public var failure: String?

        /// Creates a summary from its fields.
        public init(method: String, url: String, status: Int?, durationMs: Double, failure: String?) {
            self.method = method
            self.url = url
            self.status = status
            self.durationMs = durationMs
            self.failure = failure
        }
    }

    /// This exchange's ``Summary``.
    public var summary: Summary {
        Summary(method: method, url: url, status: status, durationMs: durationMs, failure: failure)
    }
}
