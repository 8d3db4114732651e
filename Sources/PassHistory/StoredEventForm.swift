import Foundation
import PassEvents

/// The history's older stored form of an event (schema v1–v6: the event's JSON with dates as seconds since 2001, see
/// ``EventCoding/payload(of:)``) turned into the wire form, for the v7 migration. It lives with the migrations, not in
/// the event model: no one but the history ever held that form.
enum StoredEventForm {
    /// Stored event JSON (dates as seconds since 2001, `EntitlementEvent.fastJSON(dates:)` with
    /// `.referenceSeconds`) turned into the wire form by rewriting its dates — the top-level one, the last key of
    /// the sorted object, and an HTTP exchange's `serverDate` — without decoding the event. `nil` when the text
    /// does not end that way.
    static func fromStored(_ stored: String) -> String? {
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
        guard let offset = ByteSearch.offset(of: needle, in: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: haystack))) else { return nil }
        return (haystack.startIndex + offset)..<(haystack.startIndex + offset + needle.count)
    }

    private static func jsonString(_ text: String) -> String { EntitlementEvent.Wire.jsonString(text) }

    private static func format(_ date: Date) -> String { EntitlementEvent.Wire.format(date) }
}
