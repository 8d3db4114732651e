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
            // Bytes appended in place: a String per event and their concatenation cost the reporter most of a batch.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(events.count * 600)
            for event in events {
                event.writeFastJSON(into: &bytes, dates: .iso8601)
                bytes.append(UInt8(ascii: "\n"))
            }
            return Data(bytes)
        }

        /// `text` as a JSON string literal, quotes included (escaped as `JSONEncoder` escapes it).
        public static func jsonString(_ text: String) -> String {
            var writer = FastJSONWriter(dates: .iso8601, capacity: text.utf8.count + 2)
            writer.string(text)
            return writer.text
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
