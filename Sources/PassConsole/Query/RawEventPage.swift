import AccessEnabler
import Foundation
import PassHistory

/// `GET /api/events` written straight from the stored rows: each event's ``EventView`` (what the live feed sends
/// too) and the page's counts and cursor, without decoding and re-encoding an event.
enum RawEventPage {
    static func json(
        _ events: [RawStoredEvent], nextCursor: Int64?, total: Int, matching: Int, capped: Bool, window: ClosedRange<Date>? = nil
    ) -> String {
        var out = "{\"events\":["
        out.reserveCapacity(events.reduce(256) { $0 + $1.payload.utf8.count + 200 })
        for (index, event) in events.enumerated() {
            if index > 0 { out += "," }
            EventView.append(event, to: &out)
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
