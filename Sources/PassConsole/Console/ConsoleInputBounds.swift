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
    /// `X-PassConsole-Dropped` on `POST /api/ingest`: events a reporter lost since its last batch.
    static let droppedPerBatch = 0...1_000_000_000
}
