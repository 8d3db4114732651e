import PassEvents
import Foundation

/// What a ``HistoryFilter`` decides on, as an event's row holds it: the indexed columns of the `event` row, its
/// session's ID, device and app, and its summary. The live feed filters new events on these (read with the row,
/// ``HistoryDatabase/newRawEvents(matching:after:upTo:limit:)``) instead of decoding each event; an append writes a
/// new event's columns from them (``EncodedEvent``).
public struct EventFacts: Sendable, Equatable {
    /// The session (app run) the event belongs to.
    public var sessionID: UUID
    /// The device the app ran on.
    public var deviceID: String
    /// The app's bundle ID.
    public var bundleID: String
    /// The Programmer, when the event names one.
    public var requestorID: String?
    /// The MVPD, when the event names one.
    public var mvpdID: String?
    /// What kind of event it is (call, state change, HTTP exchange, …).
    public var kind: EventKind
    /// The one-line summary (what text search looks in).
    public var summary: String
    /// The `timestamp` column's value: seconds since 2001 (`Date.timeIntervalSinceReferenceDate`).
    public var timestamp: Double
    /// An HTTP exchange's status (0 when no answer came); `nil` for other kinds: the `httpStatus` column.
    public var httpStatus: Int?

    /// Creates the facts of a row.
    public init(
        sessionID: UUID, deviceID: String, bundleID: String, requestorID: String?, mvpdID: String?, kind: EventKind,
        summary: String, timestamp: Double, httpStatus: Int?
    ) {
        self.sessionID = sessionID
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.requestorID = requestorID
        self.mvpdID = mvpdID
        self.kind = kind
        self.summary = summary
        self.timestamp = timestamp
        self.httpStatus = httpStatus
    }

    /// The facts of a decoded event: the same values its row and session row hold (what the append writes).
    public init(_ stored: StoredEvent) {
        self.init(stored.event, summary: stored.summary)
    }

    /// The facts of `event`, whose summary is `summary` (``EntitlementEvent/summary``).
    init(_ event: EntitlementEvent, summary: String) {
        var status: Int?
        if case .httpExchange(let exchange) = event.kind { status = exchange.status ?? 0 }
        self.init(sessionID: event.sessionID, deviceID: event.deviceID, bundleID: event.app.bundleID,
            requestorID: event.requestorID, mvpdID: event.mvpdID, kind: EventKind(event.kind), summary: summary,
            timestamp: EventRecord.timestampColumn(event.timestamp), httpStatus: status)
    }
}
