import AccessEnabler
import Foundation
import PassHistory

/// The events on screen as CSV (RFC 4180): one row per event, the columns a spreadsheet user filters on.
enum EventCSV {
    static let header = ["id", "time", "session", "app", "platform", "device", "programmer", "mvpd", "kind", "summary"]

    static func make(_ events: [StoredEvent]) -> String {
        var lines = [header.joined(separator: ",")]
        for stored in events {
            let event = stored.event
            let fields = [
                String(stored.id), EntitlementEvent.Wire.format(event.timestamp), event.sessionID.uuidString,
                event.app.bundleID, event.app.platform.rawValue, event.deviceID, event.requestorID ?? "", event.mvpdID ?? "",
                EventKind(event.kind).rawValue, stored.summary,
            ]
            lines.append(fields.map(escape).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Quotes a field when it holds a comma, quote or line break; doubles quotes inside. A leading `=`, `+`, `-`, `@`
    /// gets a `'` so a spreadsheet never runs it as a formula.
    static func escape(_ field: String) -> String {
        var value = field
        if let first = value.first, "=+-@".contains(first) { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
