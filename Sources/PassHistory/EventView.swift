import AccessEnabler
import Foundation

/// One event as the history stores it and as the console API and the live feed send it, the same bytes:
/// `{"event":…,"http":…,"id":…,"kind":…,"summary":…}` — the event's wire JSON (``EntitlementEvent/Wire``: ISO 8601
/// dates with milliseconds), for HTTP exchanges the fields a network list shows without digging into the event
/// (`http`, else `null`), the event's ID in the history, its kind as a word and its one-line summary.
///
/// Written once, when the event is stored (schema v7): a page of `GET /api/events` is the stored views joined with
/// commas, a live event is its stored view; nothing is decoded or encoded again to answer. Decoding a stored event
/// (exports, the session views) reads the `event` member back, with its exact time from the row's `timestamp`.
public enum EventView {
    /// The view of `event` stored under `id`, in two parts around the ID (the ID is handed out inside the write
    /// transaction, the rest is written before it, on the encoding thread): `head + String(id) + tail`.
    static func parts(of event: EntitlementEvent, summary: String) -> (head: String, tail: String) {
        var head = "{\"event\":"
        let json = event.fastJSON(dates: .iso8601)
        head.reserveCapacity(json.utf8.count + 200)
        head += json
        head += ",\"http\":"
        if case .httpExchange(let exchange) = event.kind {
            head += http(exchange.summary)
        } else {
            head += "null"
        }
        head += ",\"id\":"
        return (head, tail(kind: EventKind(event.kind).rawValue, summary: summary))
    }

    /// The view of `event` stored under `id` (the benchmark's "SQLite alone" rows are these, encoded beforehand).
    package static func json(of event: EntitlementEvent, id: Int64) -> String {
        let (head, tail) = parts(of: event, summary: event.summary)
        return json(head: head, id: id, tail: tail)
    }

    /// The view from its parts.
    package static func json(head: String, id: Int64, tail: String) -> String {
        head + String(id) + tail
    }

    /// The `http` member: method, URL, status (`null` when no answer came), duration and failure.
    static func http(_ http: HTTPExchange.Summary) -> String {
        var out = "{\"durationMs\":\(http.durationMs),\"failure\":"
        out += http.failure.map(EntitlementEvent.Wire.jsonString) ?? "null"
        out += ",\"method\":" + EntitlementEvent.Wire.jsonString(http.method)
        out += ",\"status\":" + (http.status.flatMap { $0 == 0 ? nil : String($0) } ?? "null")
        out += ",\"url\":" + EntitlementEvent.Wire.jsonString(http.url) + "}"
        return out
    }

    /// What follows the ID: the kind and the summary, and the closing brace.
    static func tail(kind: String, summary: String) -> String {
        ",\"kind\":" + EntitlementEvent.Wire.jsonString(kind) + ",\"summary\":" + EntitlementEvent.Wire.jsonString(summary) + "}"
    }

    /// The event a stored view holds, with its exact time (the view's has milliseconds only).
    package static func event(fromView view: String, timestamp: Double, decoder: JSONDecoder) throws -> EntitlementEvent {
        var event = try decoder.decode(Envelope.self, from: Data(view.utf8)).event
        event.timestamp = EventRecord.date(ofTimestampColumn: timestamp)
        return event
    }

    private struct Envelope: Decodable {
        var event: EntitlementEvent
    }
}
