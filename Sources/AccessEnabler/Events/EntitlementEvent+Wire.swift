import Foundation
import WireDates

extension EntitlementEvent {
    /// The one wire form of events between processes: what the ``EventReporter`` sends, what a console's ingest
    /// endpoint reads, what NDJSON exports hold. JSON with sorted keys and ISO 8601 UTC timestamps with milliseconds.
    public enum Wire {
        /// A fresh encoder for the wire form.
        public static func encoder() -> JSONEncoder {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .custom { date, encoder in
                var container = encoder.singleValueContainer()
                try container.encode(format(date))
            }
            return encoder
        }

        /// A fresh decoder for the wire form. Accepts ISO 8601 with or without fractional seconds, and numbers as
        /// seconds since 1970 (what other tools write).
        public static func decoder() -> JSONDecoder {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .custom { decoder in
                let container = try decoder.singleValueContainer()
                if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSince1970: seconds) }
                let text = try container.decode(String.self)
                guard let date = parse(text) else {
                    throw DecodingError.dataCorruptedError(
                        in: container, debugDescription: "'\(text)' is not an ISO 8601 date such as 2026-11-23T14:32:05.120Z")
                }
                return date
            }
            return decoder
        }

        /// `events` as newline-delimited JSON, one event per line (what ``encoder()`` writes, by the fast writer).
        public static func ndjson(_ events: [EntitlementEvent]) throws -> Data {
            var text = ""
            for event in events {
                text += event.fastJSON(dates: .iso8601)
                text += "\n"
            }
            return Data(text.utf8)
        }

        /// `text` as a JSON string literal, quotes included (escaped as `JSONEncoder` escapes it).
        public static func jsonString(_ text: String) -> String {
            var writer = FastJSONWriter(dates: .iso8601, capacity: text.utf8.count + 2)
            writer.string(text)
            return writer.output
        }

        /// Stored event JSON (dates as seconds since 2001, ``EntitlementEvent/fastJSON(dates:)`` with
        /// `.referenceSeconds`) turned into the wire form by rewriting its dates — the top-level one, the last key of
        /// the sorted object, and an HTTP exchange's `serverDate` — without decoding the event. `nil` when the text
        /// does not end that way.
        public static func fromStored(_ stored: String) -> String? {
            // Byte-level: the last `:` precedes the date (a number has none), and must follow `"timestamp"`.
            let utf8 = stored.utf8
            guard utf8.last == UInt8(ascii: "}"), let colon = utf8.lastIndex(of: UInt8(ascii: ":")) else { return nil }
            let key = Array("\"timestamp\"".utf8)
            guard utf8.distance(from: utf8.startIndex, to: colon) >= key.count,
                utf8[utf8.index(colon, offsetBy: -key.count)..<colon].elementsEqual(key)
            else { return nil }
            let numberStart = utf8.index(after: colon)
            let numberEnd = utf8.index(before: utf8.endIndex)
            guard let seconds = Double(Substring(stored[numberStart..<numberEnd])) else { return nil }
            let head = rewritingServerDate(stored[..<numberStart])
            return head + jsonString(format(Date(timeIntervalSinceReferenceDate: seconds))) + "}"
        }

        /// `text` with an exchange's `,"serverDate":<seconds>` as an ISO string. Inside a JSON string every quote is
        /// escaped, so `,"serverDate":` with bare quotes can only be the key.
        static func rewritingServerDate(_ text: Substring) -> String {
            guard let key = text.range(of: ",\"serverDate\":") else { return String(text) }
            var end = key.upperBound
            while end < text.endIndex, text[end] != ",", text[end] != "}" { end = text.index(after: end) }
            guard let seconds = Double(text[key.upperBound..<end]) else { return String(text) }
            return String(text[..<key.upperBound]) + jsonString(format(Date(timeIntervalSinceReferenceDate: seconds)))
                + String(text[end...])
        }

        /// `2026-11-23T14:32:05.120Z`.
        public static func format(_ date: Date) -> String {
            ISODate.format(date)
        }

        /// Reads `2026-11-23T14:32:05.120Z` or `2026-11-23T14:32:05Z` (any offset).
        public static func parse(_ text: String) -> Date? {
            (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
                ?? (try? Date.ISO8601FormatStyle().parse(text))
        }
    }
}
