import DecodingWords
import AccessEnabler
import Foundation

/// Reads a batch of events sent as NDJSON (one event per line, the wire form of ``EntitlementEvent/Wire``). A bad
/// line is reported with its number and reason and the good lines still count.
enum NDJSONEvents {
    struct Rejection: Encodable, Sendable, Equatable {
        /// 1-based line number in the body.
        var line: Int
        var reason: String
    }

    static func parse(_ body: Data) -> (events: [EntitlementEvent], rejected: [Rejection]) {
        let decoder = EntitlementEvent.Wire.decoder()
        var events: [EntitlementEvent] = []
        var rejected: [Rejection] = []
        var number = 0
        for line in body.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            let trimmed = line.last == 0x0D ? line.dropLast() : line
            guard !trimmed.allSatisfy({ $0 == 0x20 || $0 == 0x09 }), !EventExportHeader.isHeader(trimmed) else { continue }
            do {
                events.append(try decoder.decode(EntitlementEvent.self, from: Data(trimmed)))
            } catch {
                rejected.append(Rejection(line: number, reason: DecodingError.words(error)))
            }
        }
        return (events, rejected)
    }
}
