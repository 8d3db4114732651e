import AccessEnabler
import Foundation
import PassHistory

/// One event as the console API and the live feed send it: `{"event":…,"http":…,"id":…,"kind":…,"summary":…}` with
/// the event's wire JSON (ISO 8601 dates), for HTTP exchanges the fields a network list needs without digging into
/// the event (`http`, else `null`), its kind as a word and its one-line summary.
///
/// Written straight from the stored row (``RawStoredEvent``): the stored JSON with its dates rewritten, the row's
/// columns around it. Nothing is decoded or encoded again, for a page (`GET /api/events`) as for a live event.
enum EventView {
    /// The view of `event`.
    static func json(_ event: RawStoredEvent) -> String {
        var out = ""
        out.reserveCapacity(event.payload.utf8.count + 200)
        append(event, to: &out)
        return out
    }

    /// Appends the view of `event` to `out`.
    static func append(_ event: RawStoredEvent, to out: inout String) {
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
}
