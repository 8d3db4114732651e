import PassEvents
import Foundation
import GRDB

/// A row of the `event` table: the indexed columns filters use, the one-line summary, and the whole event as JSON.
/// The session (and with it the device and the app) is named by its `session.key`.
package struct EventRecord: Codable, FetchableRecord, TableRecord {
    package static let databaseTableName = "event"

    var id: Int64?
    var sessionKey: Int64
    var sequence: Int
    /// Seconds since 2001 (``timestampColumn(_:)``).
    var timestamp: Double
    var kind: String
    var requestorID: String?
    var mvpdID: String?
    /// The HTTP status of an `httpExchange` (0 when no answer came), `nil` for other kinds.
    var httpStatus: Int?
    var summary: String
    /// The event's view as the API sends it (``EventView``; before schema v7, the event's JSON with dates as numbers).
    var payload: String

    package enum Columns {
        static let id = Column(CodingKeys.id)
        static let sessionKey = Column(CodingKeys.sessionKey)
        static let timestamp = Column(CodingKeys.timestamp)
        static let kind = Column(CodingKeys.kind)
        static let requestorID = Column(CodingKeys.requestorID)
        static let mvpdID = Column(CodingKeys.mvpdID)
        static let httpStatus = Column(CodingKeys.httpStatus)
        static let summary = Column(CodingKeys.summary)
    }

    /// The `timestamp` column's value for `date`: seconds since 2001 (schema v7), `Date`'s own value, so the exact
    /// time of an event reads back (its stored view has milliseconds only).
    package static func timestampColumn(_ date: Date) -> Double { date.timeIntervalSinceReferenceDate }

    /// The date a `timestamp` column value stands for.
    package static func date(ofTimestampColumn value: Double) -> Date { Date(timeIntervalSinceReferenceDate: value) }

    /// The stored event, decoded from its view (``EventView``); `decoder` is ``EventCoding/decoder``.
    func stored(decoder: JSONDecoder) throws -> StoredEvent {
        StoredEvent(id: id ?? 0, summary: summary, event: try EventView.event(fromView: payload, timestamp: timestamp, decoder: decoder))
    }
}

/// An event as the history holds it: its row ID (the paging and resume cursor), its summary, and the event.
public struct StoredEvent: Codable, Sendable, Equatable, Identifiable {
    /// The `event` row's ID: increases with every stored event and is never reused; pass it as a cursor.
    public var id: Int64
    /// The one-line description (``EntitlementEvent/summary``).
    public var summary: String
    /// The event, decoded from the stored JSON.
    public var event: EntitlementEvent

    /// Creates a stored event value.
    public init(id: Int64, summary: String, event: EntitlementEvent) {
        self.id = id
        self.summary = summary
        self.event = event
    }
}
