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
            } catch let error as DecodingError {
                rejected.append(Rejection(line: number, reason: describe(error)))
            } catch {
                rejected.append(Rejection(line: number, reason: "\(error)"))
            }
        }
        return (events, rejected)
    }

    /// A decoding error in words: which field, what was wrong.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? "" : " at \(path)"
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing field '\(key.stringValue)'\(path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type\(path(context)): \(context.debugDescription)"
        case .dataCorrupted(let context): return "not a valid event\(path(context)): \(context.debugDescription)"
        @unknown default: return "not a valid event"
        }
    }
}
