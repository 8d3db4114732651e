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
            return writer.text
        }

        /// Stored event JSON (dates as seconds since 2001, ``EntitlementEvent/fastJSON(dates:)`` with
        /// `.referenceSeconds`) turned into the wire form by rewriting its dates — the top-level one, the last key of
        /// the sorted object, and an HTTP exchange's `serverDate` — without decoding the event. `nil` when the text
        /// does not end that way.
        public static func fromStored(_ stored: String) -> String? {
            // On the bytes: Foundation's `range(of:)` over every stored event was a quarter of a page's CPU.
            var stored = stored
            return stored.withUTF8 { bytes -> String? in
                // The last `:` precedes the date (a number has none), and must follow `"timestamp"`.
                guard bytes.last == UInt8(ascii: "}"), let colon = bytes.lastIndex(of: UInt8(ascii: ":")),
                    colon >= timestampKey.count, bytes[(colon - timestampKey.count)..<colon].elementsEqual(timestampKey),
                    let seconds = number(bytes[(colon + 1)..<(bytes.count - 1)])
                else { return nil }
                var out = ""
                out.reserveCapacity(bytes.count + 40)
                var head = bytes[...colon]
                // An exchange's `,"serverDate":<seconds>`: inside a JSON string every quote is escaped, so this byte
                // sequence with bare quotes can only be the key.
                if let key = firstRange(of: serverDateKey, in: head) {
                    var end = key.upperBound
                    while end < head.endIndex, head[end] != UInt8(ascii: ","), head[end] != UInt8(ascii: "}") { end += 1 }
                    if let server = number(head[key.upperBound..<end]) {
                        out += String(decoding: head[..<key.upperBound], as: UTF8.self)
                        out += jsonString(format(Date(timeIntervalSinceReferenceDate: server)))
                        head = head[end...]
                    }
                }
                out += String(decoding: head, as: UTF8.self)
                out += jsonString(format(Date(timeIntervalSinceReferenceDate: seconds)))
                out += "}"
                return out
            }
        }

        private static let timestampKey = Array("\"timestamp\"".utf8)
        private static let serverDateKey = Array(",\"serverDate\":".utf8)

        private static func number(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
            Double(String(decoding: bytes, as: UTF8.self))
        }

        private static func firstRange(of needle: [UInt8], in haystack: Slice<UnsafeBufferPointer<UInt8>>) -> Range<Int>? {
            guard needle.count <= haystack.count else { return nil }
            var index = haystack.startIndex
            let last = haystack.endIndex - needle.count
            while index <= last {
                guard let first = haystack[index...last].firstIndex(of: needle[0]) else { return nil }
                if haystack[first..<(first + needle.count)].elementsEqual(needle) { return first..<(first + needle.count) }
                index = first + 1
            }
            return nil
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
