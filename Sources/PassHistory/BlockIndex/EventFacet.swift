import GRDB

/// A property of an event that history filters select on, indexed per block of events in `event_facet` (see
/// ``BlockBits``): for each block of 256 consecutive event IDs and each value of the facet seen in it, which of the
/// block's events have that value. Device and app filters go through the sessions of the device or app.
enum EventFacet: Int, CaseIterable, Sendable {
    /// The ``EventKind`` raw value.
    case kind = 1
    /// The Programmer the event names.
    case requestor = 2
    /// The MVPD the event names.
    case mvpd = 3
    /// An HTTP exchange's status (0: no answer).
    case status = 4
    /// The session's `key`.
    case session = 5
}

/// A facet's value: text (kinds, Programmers, MVPDs, devices, apps) or an integer (statuses, session keys).
enum FacetValue: Hashable, Sendable, DatabaseValueConvertible {
    case text(String)
    case integer(Int64)

    var databaseValue: DatabaseValue {
        switch self {
        case .text(let text): text.databaseValue
        case .integer(let number): number.databaseValue
        }
    }

    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> FacetValue? {
        switch dbValue.storage {
        case .int64(let number): .integer(number)
        case .string(let text): .text(text)
        default: nil
        }
    }
}

/// The facet values of one event, worked out when it is encoded.
struct EventFacets: Sendable {
    var kind: EventKind
    var requestorID: String?
    var mvpdID: String?
    var httpStatus: Int?

}
