import PassEvents
import Foundation

/// The one JSON encoder and decoder of stored events and exports. Dates are seconds since the reference date as
/// plain numbers (`deferredToDate`), so an event decodes back exactly equal to the one that was appended.
package enum EventCoding {
    /// A fresh encoder (sorted keys, so equal events give equal bytes).
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .deferredToDate
        return encoder
    }

    /// A fresh decoder matching ``encoder``.
    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .deferredToDate
        return decoder
    }

    /// A fresh decoder of stored views (``EventView``: the wire form, ISO 8601 dates).
    package static var viewDecoder: JSONDecoder { EntitlementEvent.Wire.decoder() }

    /// The JSON of `event` as schema v1–v6 stored it: what ``encoder`` writes, produced by the event's fast writer
    /// (the same bytes). Since v7 the history stores the event's ``EventView``.
    static func payload(of event: EntitlementEvent) -> String {
        event.fastJSON(dates: .referenceSeconds)
    }

    static func event(fromPayload payload: String, decoder: JSONDecoder) throws -> EntitlementEvent {
        try decoder.decode(EntitlementEvent.self, from: Data(payload.utf8))
    }
}
