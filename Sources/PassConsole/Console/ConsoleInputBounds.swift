import Foundation

/// The ranges the console API accepts for the numbers clients send (read with MicroHTTP's `BoundedInput`): anything
/// else is a `400 invalid_parameter`, never arithmetic on an unchecked value.
extension Console {
    /// `GET /api/events?limit=`.
    static let eventPageLimit = 1...5000
    /// `GET /api/audit?limit=`.
    static let auditLimit = 1...10_000
    /// Event cursors (`before`, `after`, `Last-Event-ID`): stored row IDs, never negative.
    static let cursorRange: ClosedRange<Int64> = 0...Int64.max
    /// `GET /api/sessions?q=`: the search text, in bytes.
    static let sessionSearchLength = 500
    /// `GET /api/sessions?limit=`: sessions per page.
    static let sessionPageLimit = 1...1000
    /// `GET /api/events?window=`: the time window "Load older" reads, in seconds (one second to 30 days).
    static let eventWindow = 1...(30 * 86400)
    /// `X-PassConsole-Dropped` on `POST /api/ingest`: events a reporter lost since its last batch.
    static let droppedPerBatch = 0...1_000_000_000
}
