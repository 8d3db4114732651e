import PassEvents
import Foundation
import PassProtocol

/// One event as the history stores it and as the console API and the live feed send it, the same bytes:
/// `{"event":…,"http":…,"id":…,"kind":…,"summary":…}` — the event's wire JSON (``EntitlementEvent/Wire``: ISO 8601
/// dates with milliseconds), for HTTP exchanges the fields a network list shows without digging into the event
/// (`http`, else `null`), the event's ID in the history, its kind as a word and its one-line summary.
///
/// Written once, when the event is stored (schema v7): a page of `GET /api/events` is the stored views joined with
/// commas, a live event is its stored view; nothing is decoded or encoded again to answer. Decoding a stored event
/// (exports, the session views) reads the `event` member back, with its exact time from the row's `timestamp`.
public enum EventView {
    /// The view of an event before its ID is known: its UTF-8 bytes with the place of the ID. The ID is handed out
    /// inside the write transaction; the rest is written before it, on the encoding thread.
    package struct Parts: Sendable {
        /// The view without its ID.
        package var bytes: [UInt8]
        /// Where the ID's digits go in ``bytes``.
        package var idOffset: Int

        /// The view stored under `id`, appended to `output`.
        package func write(id: Int64, to output: inout [UInt8]) {
            bytes.withUnsafeBufferPointer { bytes in
                output.append(contentsOf: bytes[..<idOffset])
                EventView.appendDigits(of: id, to: &output)
                output.append(contentsOf: bytes[idOffset...])
            }
        }

        /// The view stored under `id`.
        package func json(id: Int64) -> String {
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count + 20)
            write(id: id, to: &output)
            return String(decoding: output, as: UTF8.self)
        }
    }

    /// The view of `event` without its ID (``Parts``).
    static func parts(of event: EntitlementEvent, summary: String) -> Parts {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1024)
        append("{\"event\":", to: &bytes)
        event.writeFastJSON(into: &bytes, dates: .iso8601)
        append(",\"http\":", to: &bytes)
        if case .httpExchange(let exchange) = event.kind {
            http(exchange.summary, to: &bytes)
        } else {
            append("null", to: &bytes)
        }
        append(",\"id\":", to: &bytes)
        let idOffset = bytes.count
        tail(kind: EventKind(event.kind).rawValue, summary: summary, to: &bytes)
        return Parts(bytes: bytes, idOffset: idOffset)
    }

    /// The view of `event` stored under `id` (the benchmark's "SQLite alone" rows are these, encoded beforehand).
    package static func json(of event: EntitlementEvent, id: Int64) -> String {
        parts(of: event, summary: event.summary).json(id: id)
    }

    /// The `http` member: method, URL, status (`null` when no answer came), duration and failure.
    static func http(_ http: HTTPExchange.Summary) -> String {
        var bytes: [UInt8] = []
        self.http(http, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func http(_ http: HTTPExchange.Summary, to bytes: inout [UInt8]) {
        append("{\"durationMs\":", to: &bytes)
        bytes.append(contentsOf: http.durationMs.description.utf8)
        append(",\"failure\":", to: &bytes)
        if let failure = http.failure { JSONText.appendString(failure, to: &bytes) } else { append("null", to: &bytes) }
        append(",\"method\":", to: &bytes)
        JSONText.appendString(http.method, to: &bytes)
        append(",\"status\":", to: &bytes)
        if let status = http.status, status != 0 { appendDigits(of: Int64(status), to: &bytes) } else { append("null", to: &bytes) }
        append(",\"url\":", to: &bytes)
        JSONText.appendString(http.url, to: &bytes)
        append("}", to: &bytes)
    }

    /// What follows the ID: the kind and the summary, and the closing brace.
    static func tail(kind: String, summary: String) -> String {
        var bytes: [UInt8] = []
        tail(kind: kind, summary: summary, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func tail(kind: String, summary: String, to bytes: inout [UInt8]) {
        append(",\"kind\":", to: &bytes)
        JSONText.appendString(kind, to: &bytes)
        append(",\"summary\":", to: &bytes)
        JSONText.appendString(summary, to: &bytes)
        append("}", to: &bytes)
    }

    private static func append(_ literal: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// `String(number)`'s digits, without making the string.
    static func appendDigits(of number: Int64, to bytes: inout [UInt8]) {
        if number < 0 { bytes.append(0x2D) }
        var magnitude = number.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: a 64-bit number has at most 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = 0x30 + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: buffer[start...])
        }
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
