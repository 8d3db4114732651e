import AccessEnabler
import Foundation
import PassHistory

/// `GET /api/events` written straight from the stored JSON: the same shape as ``EventView`` (`id`, `summary`,
/// `kind`, `event` with ISO 8601 dates, `http`), without decoding and re-encoding each event.
enum RawEventPage {
    static func json(
        _ events: [RawStoredEvent], nextCursor: Int64?, total: Int, matching: Int, capped: Bool, window: ClosedRange<Date>? = nil
    ) -> String {
        var out = "{\"events\":["
        out.reserveCapacity(events.reduce(256) { $0 + $1.payload.utf8.count + 200 })
        for (index, event) in events.enumerated() {
            if index > 0 { out += "," }
            out += "{\"event\":"
            out += EntitlementEvent.Wire.fromStored(event.payload) ?? event.payload
            out += ",\"http\":"
            if let http = event.http {
                out += "{\"durationMs\":\(http.durationMs),\"failure\":"
                out += http.failure.map(EntitlementEvent.Wire.jsonString) ?? "null"
                out += ",\"method\":" + EntitlementEvent.Wire.jsonString(http.method)
                out += ",\"status\":" + (http.status.map(String.init) ?? "null")
                out += ",\"url\":" + EntitlementEvent.Wire.jsonString(http.url) + "}"
            } else {
                out += "null"
            }
            out += ",\"id\":\(event.id),\"kind\":" + EntitlementEvent.Wire.jsonString(event.kind)
            out += ",\"summary\":" + EntitlementEvent.Wire.jsonString(event.summary) + "}"
        }
        out += "],\"matching\":\(matching),\"matchingCapped\":\(capped),\"nextCursor\":"
        out += nextCursor.map(String.init) ?? "null"
        out += ",\"total\":\(total)"
        if let window {
            out += ",\"window\":{\"from\":" + EntitlementEvent.Wire.jsonString(EntitlementEvent.Wire.format(window.lowerBound))
            out += ",\"until\":" + EntitlementEvent.Wire.jsonString(EntitlementEvent.Wire.format(window.upperBound)) + "}"
        }
        out += "}"
        return out
    }
}
